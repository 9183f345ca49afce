import EntraHTTP
import Testing

/// The parts of a request kept with it (path, segments, query) and read from its headers (host name):
/// what routing asks of every request.
@Suite struct RequestDerivedPartsTests {
    @Test(arguments: [
        ("login.example", "login.example"),
        ("Login.Example:8443", "login.example"),
        ("graph.microsoft.com:443", "graph.microsoft.com"),
        ("[::1]:8443", "[::1]"),
        ("[::1]", "[::1]"),
        ("[FE80::1", "[fe80::1]"),
        ("ÉTÉ.example:1", "été.example"),
        (":8443", "8443"),
        ("host:\u{301}80", "host:\u{301}80"),
    ])
    func hostNameDropsThePortAndLowerCases(host: String, name: String) {
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Host": host])
        #expect(request.hostName == name)
    }

    @Test func noHostHeaderAndAnEmptyOneNameNoHost() {
        #expect(HTTPRequest(method: "GET", target: "/").hostName == nil)
        #expect(HTTPRequest(method: "GET", target: "/", headers: ["Host": ""]).hostName == nil)
    }

    @Test func pathSegmentsAndQueryFollowTheTarget() {
        var request = HTTPRequest(method: "GET", target: "/a/b%20c?x=1&y=%32#frag")
        #expect(request.rawPath == "/a/b%20c")
        #expect(request.pathSegments == ["a", "b c"])
        #expect(request.rawQuery == "x=1&y=%32")
        #expect(request.query["y"] == "2")
        request.target = "/other"
        #expect(request.rawPath == "/other")
        #expect(request.pathSegments == ["other"])
        #expect(request.rawQuery == nil)
        request.target = "/p?"
        #expect(request.rawQuery == "")
    }
}
