import EntraHTTP
import Testing

/// RFC 9112 §3.2: the four forms of request-target.
@Suite struct RequestTargetTests {
    @Test func absoluteFormIsReducedToItsPathAndItsAuthorityReplacesHost() throws {
        let (whole, bytewise) = decodeEverySplit("GET https://Login.Example:8443/common/v2.0/authorize?client_id=a%20b&x HTTP/1.1\r\nHost: elsewhere\r\n\r\n")
        #expect(whole == bytewise)
        let request = try #require(whole.requests.first)
        #expect(request.target == "/common/v2.0/authorize?client_id=a%20b&x")
        #expect(request.rawPath == "/common/v2.0/authorize")
        #expect(request.pathSegments == ["common", "v2.0", "authorize"])
        #expect(request.query["client_id"] == "a b")
        #expect(request.authority == "Login.Example:8443")
        #expect(request.headers.values(for: "Host") == ["Login.Example:8443"])
        #expect(request.hostName == "login.example")
    }

    @Test(arguments: [
        ("GET http://h HTTP/1.1", "/", "h"),
        ("GET HTTPS://h?q=1 HTTP/1.1", "/?q=1", "h"),
        ("GET http://[::1]:8080/p HTTP/1.1", "/p", "[::1]:8080"),
        ("GET https://h/a#frag HTTP/1.1", "/a#frag", "h"),
    ])
    func absoluteFormVariants(line: String, target: String, authority: String) throws {
        let decoded = decode(line + "\r\nHost: h\r\n\r\n")
        let request = try #require(decoded.requests.first, "\(String(describing: decoded.error))")
        #expect(request.target == target)
        #expect(request.authority == authority)
        #expect(request.headers["Host"] == authority)
    }

    @Test func http10AbsoluteFormWithoutHostGetsOneFromTheTarget() throws {
        let request = try #require(decode("GET http://login.example/x HTTP/1.0\r\n\r\n").requests.first)
        #expect(request.headers["Host"] == "login.example")
        #expect(request.rawPath == "/x")
    }

    @Test func absoluteFormStillNeedsAHostHeaderInHTTP11() {
        #expect(decode("GET http://h/x HTTP/1.1\r\n\r\n").error?.kind == .invalidHost)
    }

    @Test func asteriskFormIsKeptForOptionsOnly() throws {
        let request = try #require(decode("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(request.target == "*")
        #expect(request.rawPath == "*")
        #expect(request.rawQuery == nil)
        #expect(request.authority == nil)
        #expect(decode("GET * HTTP/1.1\r\nHost: h\r\n\r\n").error?.kind == .malformedRequestLine)
    }

    @Test func connectKeepsItsAuthorityForm() throws {
        let request = try #require(decode("CONNECT login.example:443 HTTP/1.1\r\nHost: login.example:443\r\n\r\n").requests.first)
        #expect(request.target == "login.example:443")
        #expect(request.authority == nil)
    }

    @Test(arguments: [
        "GET relative/path HTTP/1.1",
        "GET ftp://h/file HTTP/1.1",
        "GET https:/h/x HTTP/1.1",
        "GET https:///x HTTP/1.1",
        "GET https://:443/x HTTP/1.1",
        "GET https://user:pw@h/x HTTP/1.1",
        "GET https://h\"/x HTTP/1.1",
        "GET 1http://h/x HTTP/1.1",
    ])
    func invalidTargetsAre400(line: String) {
        let error = decode(line + "\r\nHost: h\r\n\r\n").error
        #expect(error?.kind == .malformedRequestLine)
        #expect(error?.status.code == 400)
    }
}
