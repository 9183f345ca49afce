package import EntraCrypto
package import FoundationGaps
package import LocatedJSON

/// The header and payload of a compact JWT, read as JSON objects (for tokens other parties made:
/// client assertions, our own tokens coming back as on-behalf-of assertions, a bearer token scenario
/// rules match on).
package struct ParsedJWT {
    package let jws: DecodedJWS
    package let header: JSONValue
    package let claims: JSONValue

    package init?(_ compact: String) {
        guard let jws = JWS.decode(compact),
              let header = LocatedJSON.object(body: jws.headerJSON),
              let claims = LocatedJSON.object(body: jws.payloadJSON)
        else { return nil }
        self.jws = jws
        self.header = header
        self.claims = claims
    }

    package func string(_ name: String) -> String? { claims[name]?.string }

    /// NumericDate claims (`exp`, `nbf`, `iat`).
    package func date(_ name: String) -> Date? { claims[name]?.numericDate }

    package func strings(_ name: String) -> [String] {
        if let list = claims[name]?.strings { return list }
        if let text = claims[name]?.string { return text.split(separator: " ").map(String.init) }
        return []
    }
}

extension JSONValue {
    /// A JWT NumericDate (RFC 7519 §2): seconds since 1970 as an integer or a decimal, also when a
    /// lenient issuer wrote the number as a string.
    package var numericDate: Date? {
        guard let seconds = self.double ?? self.string.flatMap({ Double($0) }) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
