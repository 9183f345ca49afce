import EntraCrypto

/// B2C codes and refresh tokens are JWEs (five base64url segments); FakeEntra's have that shape so that
/// clients which inspect them see what they expect, and anything else is refused as the service does.
enum B2CGrantToken {
    private static let header = Base64URL.encode(Array(#"{"kid":"fakeentra_b2c_grant","ver":"1.0","zip":"Deflate","ser":"1.0"}"#.utf8))

    static func make() -> String {
        [header, SecureRandom.base64URLString(byteCount: 32), SecureRandom.base64URLString(byteCount: 12),
         SecureRandom.base64URLString(byteCount: 96), SecureRandom.base64URLString(byteCount: 16)].joined(separator: ".")
    }

    static func isWellFormed(_ token: String) -> Bool {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count == 5 && segments.allSatisfy { !$0.isEmpty && Base64URL.decode(String($0)) != nil }
    }
}
