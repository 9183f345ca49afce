/// The request-target forms of RFC 9112 §3.2, reduced to what routing needs: a path and query in
/// origin form, plus the authority an absolute-form target named.
package struct RequestTarget: Equatable {
    /// `/path?query`; `*` for the asterisk form; the target unchanged for CONNECT's authority form.
    var originForm: String
    /// `host[:port]` of an absolute-form target (`https://host:port/path`), else nil.
    var authority: String?

    init(_ target: String, method: String) throws(HTTPDecodingError) {
        let bytes = target.utf8
        if bytes.first == UInt8(ascii: "/") {
            self.init(originForm: target, authority: nil)
        } else if target == "*" {
            // RFC 9112 §3.2.4: only OPTIONS asks about the server as a whole.
            guard method == "OPTIONS" else {
                throw HTTPDecodingError(.malformedRequestLine, "the asterisk-form target is only valid with OPTIONS")
            }
            self.init(originForm: target, authority: nil)
        } else if method == "CONNECT" {
            // Authority form (`host:port`, which would also pass for a scheme): we are no proxy, but
            // routing answers it like any unknown path.
            self.init(originForm: target, authority: nil)
        } else if let schemeEnd = Self.schemeEnd(bytes) {
            try self.init(absolute: target, schemeEnd: schemeEnd)
        } else {
            throw HTTPDecodingError(.malformedRequestLine, "the request target must be a path (/…), an absolute http(s) URI or *")
        }
    }

    private init(originForm: String, authority: String?) {
        self.originForm = originForm
        self.authority = authority
    }

    /// RFC 9112 §3.2.2: `scheme://authority[path][?query]`; the path defaults to `/`.
    private init(absolute target: String, schemeEnd: String.UTF8View.Index) throws(HTTPDecodingError) {
        let bytes = target.utf8
        let scheme = String(target[..<schemeEnd])
        guard scheme.equalsIgnoringASCIICase("https") || scheme.equalsIgnoringASCIICase("http") else {
            throw HTTPDecodingError(.malformedRequestLine, "only http and https absolute-form targets are served")
        }
        let afterColon = bytes.index(after: schemeEnd)
        guard bytes[afterColon...].starts(with: "//".utf8) else {
            throw HTTPDecodingError(.malformedRequestLine, "an absolute-form target needs //authority")
        }
        let authorityStart = bytes.index(afterColon, offsetBy: 2)
        let authorityEnd = bytes[authorityStart...].firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        // RFC 9110 §4.2.1: an empty host is invalid; §4.2.4: userinfo is to be treated as an error.
        guard let first = authority.first, first != UInt8(ascii: ":") else {
            throw HTTPDecodingError(.malformedRequestLine, "an absolute-form target needs a host")
        }
        guard authority.allSatisfy(Self.isAuthorityByte) else {
            throw HTTPDecodingError(.malformedRequestLine, "invalid authority in the request target")
        }
        let rest = String(target[authorityEnd...])
        self.init(originForm: rest.utf8.first == UInt8(ascii: "/") ? rest : "/" + rest,
                  authority: String(target[authorityStart..<authorityEnd]))
    }

    /// The index of the `:` ending a scheme (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
    package static func schemeEnd(_ bytes: String.UTF8View) -> String.UTF8View.Index? {
        guard let first = bytes.first, isAlpha(first),
              let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let isSchemeByte = { (b: UInt8) in
            isAlpha(b) || HTTPHeadParser.isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
        return bytes[..<colon].allSatisfy(isSchemeByte) ? colon : nil
    }

    @inline(__always) private static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    /// reg-name, IP literal and port characters (RFC 3986 §3.2.2–3.2.3), without `@` (userinfo).
    private static func isAuthorityByte(_ b: UInt8) -> Bool {
        if isAlpha(b) || HTTPHeadParser.isDigit(b) { return true }
        switch b {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }
}
