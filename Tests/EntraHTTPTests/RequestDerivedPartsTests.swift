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

    /// Copies share one box until one of them changes: each change is the changed copy's alone, and its
    /// derived parts (path, segments, query, form) follow it.
    @Test func aChangedCopyLeavesTheRequestItCameFromAlone() {
        let form = ["Content-Type": "application/x-www-form-urlencoded"] as HTTPHeaders
        let original = HTTPRequest(method: "POST", target: "/a/b?x=1", headers: form, body: Array("k=v".utf8))
        var copy = original
        #expect(copy == original)
        copy.target = "/c?y=2"
        copy.body = Array("k=w".utf8)
        copy.method = "PUT"
        copy.authority = "host:1"
        copy.version = .http10
        copy.trailers = ["T": "1"]
        #expect(original.method == "POST" && original.target == "/a/b?x=1" && original.authority == nil && original.version == .http11)
        #expect(original.rawPath == "/a/b" && original.pathSegments == ["a", "b"] && original.rawQuery == "x=1")
        #expect(original.form["k"] == "v" && original.trailers.fields.isEmpty)
        #expect(copy.rawPath == "/c" && copy.pathSegments == ["c"] && copy.rawQuery == "y=2" && copy.form["k"] == "w")
        #expect(copy != original)

        var plain = original
        plain.headers = [:]
        #expect(plain.form.pairs.isEmpty, "the form goes with its content type")
        #expect(original.form["k"] == "v")

        let rebuilt = HTTPRequest(method: "POST", target: "/a/b?x=1", headers: form, body: Array("k=v".utf8))
        #expect(rebuilt == original, "equal requests in different boxes are equal")
    }

    /// Equality compares every field: a request changed in any one of them differs from its original.
    @Test func aRequestChangedInAnyOneFieldIsNotEqual() {
        let original = HTTPRequest(method: "POST", target: "/a?x=1", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("k=v".utf8))
        let changes: [(String, (inout HTTPRequest) -> Void)] = [
            ("method", { $0.method = "PUT" }), ("target", { $0.target = "/b?x=1" }), ("authority", { $0.authority = "h" }),
            ("version", { $0.version = .http10 }), ("headers", { $0.headers.add("X", "1") }), ("body", { $0.body = Array("k=v2".utf8) }),
            ("trailers", { $0.trailers = ["T": "1"] }),
        ]
        for (field, change) in changes {
            var changed = original
            change(&changed)
            #expect(changed != original, "\(field)")
            #expect(original == HTTPRequest(method: "POST", target: "/a?x=1", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("k=v".utf8)))
        }
    }

    /// Changes made in place (not by assignment) carry the form along, as the stored properties' observers did.
    @Test func inPlaceChangesOfHeadersAndBodyRecomputeTheForm() {
        var request = HTTPRequest(method: "POST", target: "/t", body: Array("a=1".utf8))
        #expect(request.form.pairs.isEmpty, "no content type yet")
        request.headers.set("Content-Type", "application/x-www-form-urlencoded")
        #expect(request.form["a"] == "1")
        request.body.append(contentsOf: Array("&b=2".utf8))
        #expect(request.form["b"] == "2")
        request.headers.remove("content-type")
        #expect(request.form.pairs.isEmpty)
    }

    /// Path and query cut as the code before the byte search did (`firstIndex` on the target's characters).
    @Test(arguments: ["", "/", "/a", "/a?x=1", "/a#f?x", "/p?", "#?", "#", "?", "/a?x#y", "/é?ü#x", "/a??b", "*", "/%3F?q"])
    func pathAndQueryAreCutAsBefore(target: String) {
        let formerPath: String = {
            if let q = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { return String(target[..<q]) }
            return target
        }()
        let formerQuery: String? = {
            guard let q = target.firstIndex(of: "?") else { return nil }
            var query = target[target.index(after: q)...]
            if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
            return String(query)
        }()
        let request = HTTPRequest(method: "GET", target: target)
        #expect(request.rawPath == formerPath)
        #expect(request.rawQuery == formerQuery)
    }

    /// The byte loops that split forms and paths cut as `split(omittingEmptySubsequences: true)` did.
    @Test(arguments: ["", "&", "=", "&&", "a", "a=", "=b", "a=1&&b&", "&a=1", "a=1&", "a=1=2&b", "%zz=1&a+b=c%20d", "é=ü&&ß"])
    func formsSplitAsSplittingOnAmpersandsDid(encoded: String) {
        let expected = encoded.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { part -> (String, String) in
            let text = String(Substring(part))
            guard let eq = text.firstIndex(of: "=") else { return (text, "") }
            return (String(text[..<eq]), String(text[text.index(after: eq)...]))
        }
        let decoded = FormParameters(decoding: encoded).pairs
        #expect(decoded.count == expected.count)
        for (pair, raw) in zip(decoded, expected) {
            #expect(pair.name == FormParameters(decoding: raw.0 + "=").pairs.first?.name ?? "")
            #expect(pair.value == (raw.1.isEmpty ? "" : FormParameters(decoding: "n=" + raw.1).pairs.first?.value))
        }
    }

    @Test(arguments: ["", "/", "//", "/a", "a", "//a//b/", "/a/b%20c/", "/%2F/x", "/é/ü"])
    func pathsSplitAsSplittingOnSlashesDid(path: String) {
        let expected = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { bytes in
            let segment = String(Substring(bytes))
            return FormCoding.percentDecode(segment) ?? segment
        }
        #expect(HTTPRequest(method: "GET", target: path).pathSegments == expected)
    }
}
