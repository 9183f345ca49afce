import _CryptoExtras
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the API needs from a valid access token.
public struct CallerClaims: Sendable {
    public var subject: String
    public var name: String?
    public var scopes: [String]
}

/// Validates Entra v2.0 access tokens the way a production API does: the authority's OpenID metadata
/// names the issuer and the JWKS; the signature (RS256), issuer, audience and expiry are checked.
public actor TokenValidator {
    public enum Failure: Error, Equatable {
        case malformed, unknownKey, badSignature, wrongIssuer, wrongAudience, expired, metadataUnavailable(String)
    }

    let metadataURL: URL
    let audience: String
    private var issuer: String?
    private var keys: [String: _RSA.Signing.PublicKey] = [:]

    /// `authority`: `https://login.microsoftonline.com/<tenant>/v2.0` in production, FakeEntra's base URL
    /// plus `/<tenant>/v2.0` in tests.
    public init(authority: String, audience: String) {
        metadataURL = URL(string: authority + "/.well-known/openid-configuration")!
        self.audience = audience
    }

    public func validate(_ token: String) async throws -> CallerClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Self.base64URL(parts[0]), let payloadBytes = Self.base64URL(parts[1]),
              let signature = Self.base64URL(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any],
              let payload = try? JSONSerialization.jsonObject(with: payloadBytes) as? [String: Any],
              header["alg"] as? String == "RS256", let kid = header["kid"] as? String else { throw Failure.malformed }
        if keys[kid] == nil { try await refresh() }  // a new kid: the keys rolled over
        guard let key = keys[kid] else { throw Failure.unknownKey }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5) else {
            throw Failure.badSignature
        }
        guard payload["iss"] as? String == issuer else { throw Failure.wrongIssuer }
        guard payload["aud"] as? String == audience else { throw Failure.wrongAudience }
        guard let exp = payload["exp"] as? Double, exp > Date().timeIntervalSince1970 else { throw Failure.expired }
        let scopes = (payload["scp"] as? String)?.split(separator: " ").map(String.init) ?? []
        return CallerClaims(subject: payload["sub"] as? String ?? "", name: payload["name"] as? String, scopes: scopes)
    }

    /// Reads the metadata, then the JWKS it points at.
    private func refresh() async throws {
        let metadata = try await Self.json(metadataURL)
        guard let issuer = metadata["issuer"] as? String, let jwks = (metadata["jwks_uri"] as? String).flatMap(URL.init(string:)) else {
            throw Failure.metadataUnavailable("no issuer or jwks_uri in \(metadataURL)")
        }
        self.issuer = issuer
        for entry in try await Self.json(jwks)["keys"] as? [[String: Any]] ?? [] {
            guard entry["kty"] as? String == "RSA", let kid = entry["kid"] as? String,
                  let n = (entry["n"] as? String).flatMap(Self.base64URL), let e = (entry["e"] as? String).flatMap(Self.base64URL) else { continue }
            keys[kid] = try _RSA.Signing.PublicKey(n: n, e: e)
        }
    }

    private static func json(_ url: URL) async throws -> [String: Any] {
        let (data, response) = try await URLSession.shared.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure.metadataUnavailable(url.absoluteString)
        }
        return object
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
