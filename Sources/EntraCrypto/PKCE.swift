/// RFC 7636 Proof Key for Code Exchange.
package enum PKCE {
    /// `code_challenge` for a `code_verifier` (RFC 7636 §4.2): S256 is BASE64URL(SHA256(ASCII(verifier))).
    package static func challenge(for verifier: String, method: PKCEMethod) -> String {
        switch method {
        case .plain: verifier
        case .s256: Base64URL.encode(Digest.sha256(verifier.utf8))
        }
    }

    /// Server-side check (RFC 7636 §4.6), comparing in constant time.
    package static func verify(verifier: String, challenge: String, method: PKCEMethod) -> Bool {
        ConstantTime.equals(Self.challenge(for: verifier, method: method), challenge)
    }

    /// RFC 7636 §4.1: 43 to 128 characters from the unreserved set `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`.
    /// The same grammar applies to `code_challenge` (§4.2).
    package static func isWellFormed(_ verifierOrChallenge: String) -> Bool {
        let bytes = Array(verifierOrChallenge.utf8)
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }
}

package enum PKCEMethod: String, Sendable {
    case s256 = "S256"
    case plain
}
