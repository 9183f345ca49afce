/// A decoded HTTP/1.1 request. Built by `HTTPRequestDecoder` or directly in tests.
///
/// Its fields live in one box shared by copies until one is changed: a request goes down a dozen
/// responder layers and into several contexts by value, and a copy of eleven reference-counted fields
/// cost eleven atomic increments and as many decrements, each time.
package struct HTTPRequest: Sendable, Equatable {
    private struct Fields: Sendable, Equatable {
        var method: String
        var target: String
        var authority: String?
        var version: HTTPVersion
        var headers: HTTPHeaders
        var body: [UInt8]
        var trailers: HTTPHeaders
        var rawPath: String
        var pathSegments: [String]
        var rawQuery: String?
        var form: FormParameters
    }

    private var storage: CopyOnWrite<Fields>

    package init(method: String, target: String, authority: String? = nil, version: HTTPVersion = .http11,
                headers: HTTPHeaders = [:], body: [UInt8] = []) {
        let rawPath = Self.path(of: target)
        storage = CopyOnWrite(Fields(method: method, target: target, authority: authority, version: version, headers: headers, body: body,
                                     trailers: [:], rawPath: rawPath, pathSegments: Self.segments(of: rawPath), rawQuery: Self.query(of: target),
                                     form: Self.form(headers: headers, body: body)))
    }

    package var method: String {
        get { storage.fields.method }
        set { storage.fields.method = newValue }
    }

    /// The request-target in origin form (path plus optional query). An absolute-form target
    /// (`https://host/path?q`, RFC 9112 §3.2.2) is reduced to its path and query, its authority kept in
    /// `authority`; `*` (OPTIONS) stays `*`.
    package var target: String {
        get { storage.fields.target }
        set {
            let rawPath = Self.path(of: newValue)
            storage.fields.target = newValue
            storage.fields.rawPath = rawPath
            storage.fields.pathSegments = Self.segments(of: rawPath)
            storage.fields.rawQuery = Self.query(of: newValue)
        }
    }

    /// The authority (`host[:port]`) of an absolute-form target, nil for the other forms. The decoder
    /// also puts it in `Host`, which RFC 9112 §3.2.2 says it replaces.
    package var authority: String? {
        get { storage.fields.authority }
        set { storage.fields.authority = newValue }
    }

    package var version: HTTPVersion {
        get { storage.fields.version }
        set { storage.fields.version = newValue }
    }

    // Changed in place (`request.headers.set(…)`), as the stored properties were: a get-and-set pair would
    // copy the fields' array at each change.
    package var headers: HTTPHeaders {
        get { storage.fields.headers }
        _modify {
            defer { storage.fields.form = Self.form(headers: storage.fields.headers, body: storage.fields.body) }
            yield &storage.fields.headers
        }
    }

    package var body: [UInt8] {
        get { storage.fields.body }
        _modify {
            defer { storage.fields.form = Self.form(headers: storage.fields.headers, body: storage.fields.body) }
            yield &storage.fields.body
        }
    }

    /// Trailer fields of a chunked body (kept apart so they can never override framing headers).
    package var trailers: HTTPHeaders {
        get { storage.fields.trailers }
        set { storage.fields.trailers = newValue }
    }

    /// The path part of the target, still percent-encoded. Kept with the target: routing, the
    /// journal and the handlers ask for it a few dozen times per request.
    package var rawPath: String { storage.fields.rawPath }

    /// The path split on `/`, each segment percent-decoded; empty segments dropped. Kept with the
    /// target: each router (Graph, B2C, Entra) reads them.
    package var pathSegments: [String] { storage.fields.pathSegments }

    /// The query after `?` and before any `#`, still percent-encoded; nil without a `?`. Kept with the
    /// target like `rawPath`: the journal, the scenario engine and the endpoints each ask for it.
    package var rawQuery: String? { storage.fields.rawQuery }

    package var query: FormParameters { FormParameters(decoding: rawQuery ?? "") }

    /// Body parameters when the body is `application/x-www-form-urlencoded`, else empty. Decoded with
    /// the body: the token endpoint, the scenario engine and the journal each read it.
    package var form: FormParameters { storage.fields.form }

    package static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        // Every field, the derived ones too, as the synthesized comparison did.
        lhs.storage.sharesFields(with: rhs.storage) || lhs.storage.fields == rhs.storage.fields
    }

    private static func path(of target: String) -> String {
        // Searched on the string's bytes: the view's own search walks its index type byte by byte.
        guard let offset = target.withUTF8Bytes({ $0.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } }) else { return target }
        return String(target[..<target.utf8.index(target.utf8.startIndex, offsetBy: offset)])
    }

    private static func segments(of path: String) -> [String] {
        path.withUTF8Bytes { bytes in
            var segments: [String] = []
            segments.reserveCapacity(bytes.count { $0 == UInt8(ascii: "/") } + 1)
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
                if end > start {
                    // Cut at an ASCII byte, so each piece is whole UTF-8.
                    let segment = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    segments.append(FormCoding.percentDecode(segment) ?? segment)
                }
                start = end + 1
            }
            return segments
        }
    }

    private static func query(of target: String) -> String? {
        // Offsets of `?` and of the first `#` after it, found on the string's bytes.
        let bounds = target.withUTF8Bytes { bytes -> (start: Int, end: Int)? in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            return (mark + 1, bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count)
        }
        guard let bounds else { return nil }
        let utf8 = target.utf8
        return String(target[utf8.index(utf8.startIndex, offsetBy: bounds.start)..<utf8.index(utf8.startIndex, offsetBy: bounds.end)])
    }

    private static func form(headers: HTTPHeaders, body: [UInt8]) -> FormParameters {
        guard !body.isEmpty, let type = headers["Content-Type"], type.fastLowercased.hasPrefix("application/x-www-form-urlencoded") else {
            return FormParameters()
        }
        return FormParameters(decoding: String(decoding: body, as: UTF8.self))
    }

    /// Cookies from every `Cookie` header, first occurrence of a name wins.
    package var cookies: [String: String] { CookieCoding.parse(headers.values(for: "Cookie")) }

    /// The host name from the `Host` header without its port, lowercased.
    package var hostName: String? {
        guard let host = headers["Host"] else { return nil }
        // The usual value, an ASCII name and perhaps a port, is cut at its colon without lower-casing and
        // splitting all of it (routing asks on every request); anything else as it always was.
        let bytes = host.utf8
        if let first = bytes.first, first != UInt8(ascii: "["), first != UInt8(ascii: ":"), host.isPlainASCII {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            let name = end == bytes.endIndex ? host : String(Substring(bytes[..<end]))
            return name.fastLowercased
        }
        let lowered = host.fastLowercased
        if lowered.hasPrefix("[") { return lowered.split(separator: "]").first.map { String($0) + "]" } }
        return lowered.split(separator: ":").first.map(String.init)
    }
}

