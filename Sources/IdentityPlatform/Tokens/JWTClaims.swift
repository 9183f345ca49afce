import EntraCrypto
import Foundation

/// The header and payload of a compact JWT, read as JSON objects (for tokens other parties made:
/// client assertions, our own tokens coming back as on-behalf-of assertions, a bearer token scenario
/// rules match on).
package struct ParsedJWT {
    let jws: DecodedJWS
    let header: [String: Any]
    let claims: [String: Any]

    package init?(_ compact: String) {
        guard let jws = JWS.decode(compact),
              let header = try? JSONSerialization.jsonObject(with: Data(jws.headerJSON)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(jws.payloadJSON)) as? [String: Any]
        else { return nil }
        self.jws = jws
        self.header = header
        self.claims = claims
    }

    package func string(_ name: String) -> String? { claims[name] as? String }

    /// NumericDate claims (`exp`, `nbf`, `iat`), as integers or decimals.
    func date(_ name: String) -> Date? {
        if let number = claims[name] as? NSNumber { return Date(timeIntervalSince1970: number.doubleValue) }
        if let text = claims[name] as? String, let value = Double(text) { return Date(timeIntervalSince1970: value) }
        return nil
    }

    package func strings(_ name: String) -> [String] {
        if let list = claims[name] as? [String] { return list }
        if let text = claims[name] as? String { return text.split(separator: " ").map(String.init) }
        return []
    }
}
