package import EntraHTTP
package import ExchangeKernel
import IdentityPlatform
import FoundationGaps

/// The names this server answers as: its certificate's names (localhost, 127.0.0.1, ::1, each
/// `--hostname`, `*.b2clogin.com`-style wildcards of one label) and the addresses it is bound to.
///
/// Issuers, discovery documents and links are built from the Host header (so a hosts-file override of
/// login.microsoftonline.com yields issuers on that host). A Host that is none of these names is refused
/// (421): it must not become a token's `iss`, and a page whose name was rebound to this machine must not
/// reach the console or the control API.
package struct ServedHosts: Sendable, Equatable {
    /// Lowercased names without brackets or ports; `*.x.y` matches exactly one label before `.x.y`.
    package let names: [String]
    /// The name the server prints as its address (`127.0.0.1`, `::1`, `localhost`), without a port.
    package let primary: String

    package init(names: [String], primary: String) {
        self.names = names.map(Self.bare)
        self.primary = Self.bare(primary)
    }

    /// Whether a Host header value (`name`, `name:port`, `[v6]:port`) names one of the served names.
    /// Runs on every request, so it reads bytes: a Host header is ASCII (RFC 9110 §7.2, IDNA names in
    /// their ASCII form), and one that is not is never served (it gets the primary name instead).
    package func serves(host header: String) -> Bool {
        header.withUTF8Bytes { bytes in
            guard let range = Self.hostRange(bytes) else { return false }
            let host = UnsafeBufferPointer(rebasing: bytes[range])
            return names.contains { name in name.withUTF8Bytes { Self.matches(host: host, name: $0) } }
        }
    }

    /// Where the name of a Host value is, without its port, brackets or trailing dot; nil when empty, not
    /// ASCII, or not of the form `name`, `name:port`, `[literal]`, `[literal]:port` or a bare IPv6 literal
    /// (a port is digits; nothing else may follow the name). Read in place: this runs per request.
    private static func hostRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func isPort(_ range: Range<Int>) -> Bool { !range.isEmpty && range.allSatisfy { (0x30...0x39).contains(bytes[$0]) } }
        var start = 0, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        if start < end, bytes[start] == UInt8(ascii: "[") {
            // `[v6]` or `[v6]:port`: the literal between the brackets, taken as it is.
            guard let close = (start..<end).first(where: { bytes[$0] == UInt8(ascii: "]") }) else { return nil }
            guard close + 1 == end || (bytes[close + 1] == UInt8(ascii: ":") && isPort((close + 2)..<end)) else { return nil }
            start += 1
            end = close
        } else {
            // `name:port`; more colons are a bare IPv6 literal. (Searched, not collected: this runs per request.)
            if let colon = (start..<end).first(where: { bytes[$0] == UInt8(ascii: ":") }),
               !((colon + 1)..<end).contains(where: { bytes[$0] == UInt8(ascii: ":") }) {
                guard isPort((colon + 1)..<end) else { return nil }
                end = colon
            }
        }
        if end > start, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard start < end, bytes[start..<end].allSatisfy({ $0 < 0x80 && !isSpace($0) }) else { return nil }
        return start..<end
    }

    /// `host` is a Host value's name (`hostRange`), in any case; `name` is bare and lower-cased; `*.x.y`
    /// matches exactly one label before `.x.y`.
    private static func matches(host: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>) -> Bool {
        func sameLowered(_ host: Slice<UnsafeBufferPointer<UInt8>>, _ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            host.count == name.count && zip(host, name).allSatisfy { asciiLower($0) == $1 }
        }
        guard name.count >= 2, name[0] == UInt8(ascii: "*"), name[1] == UInt8(ascii: ".") else { return sameLowered(host[...], name[...]) }
        let suffix = name[1...]  // ".b2clogin.com"
        guard host.count > suffix.count, sameLowered(host[(host.count - suffix.count)...], suffix) else { return false }
        // One DNS label: letters, digits and hyphens (`*.b2clogin.com` itself is no host).
        return host[..<(host.count - suffix.count)].allSatisfy { byte in
            let lowered = asciiLower(byte)
            return (0x61...0x7A).contains(lowered) || (0x30...0x39).contains(lowered) || lowered == UInt8(ascii: "-")
        }
    }

    /// Lowercased, brackets and a trailing dot removed, as a Host value is read (`hostRange`). A name
    /// that is not ASCII is kept lower-cased: no Host can name it.
    static func bare(_ name: String) -> String {
        let host = name.withUTF8Bytes { bytes in hostRange(bytes).map { bytes[$0].map(asciiLower) } }
        if let host { return String(decoding: host, as: UTF8.self) }
        return name.lowercased()
    }
}

extension ServedHosts: ExchangeLayer {
    /// A request made in process names any host (a router test reaches graph.microsoft.com or
    /// *.b2clogin.com by its Host); one read from a socket only a served one.
    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        if context.connection.isInProcess { return next(request, context) }
        return refusal(request) ?? next(request, context)
    }

    /// The answer to a request whose Host this server does not serve, or nil. A page whose host name was
    /// rebound to this machine (DNS rebinding) must not read the console nor drive the control API.
    func refusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard let host = request.headers["Host"], !serves(host: host) else { return nil }
        let text = "421 Misdirected Request: FakeEntra does not serve the host name in \"Host: \(host)\". It answers as \(names.joined(separator: ", ")); start it with --hostname NAME to serve another name.\n"
        return HTTPResponse(status: HTTPStatus(421), text: text, contentType: "text/plain; charset=utf-8")
    }
}
