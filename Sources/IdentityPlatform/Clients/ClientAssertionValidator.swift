import EntraCrypto
package import FoundationGaps
import LocatedJSON

/// Validates a `client_assertion` (RFC 7523): an RS256 or PS256 JWT signed with the key of a certificate
/// registered on the app, addressed to a token endpoint, issued by and about the client, in date.
enum ClientAssertionValidator {
    static let verifier = JWTVerifier.clientAssertion

    static func validate(_ assertion: String, application app: Application, audience accepted: AssertionAudience, now: Date) throws(IdentityError) {
        guard let jwt = ParsedJWT(assertion) else { throw .malformedClientAssertion("JWT token is invalid or malformed.") }
        try checkAlgorithm(of: jwt)
        let certificate = try signingCertificate(for: jwt, application: app)
        guard let key = try? certificate.publicKey, verifier.isSigned(jwt, byOneOf: [key]) else {
            throw .clientAssertionSignatureInvalid(clientID: app.clientID)
        }
        guard let audience = jwt.audiences.first, accepted.admits(audience) else {
            throw .clientAssertionAudienceInvalid()
        }
        guard jwt.string("iss") == app.clientID || jwt.string("iss")?.lowercased() == app.clientID.lowercased(),
              jwt.string("sub")?.lowercased() == app.clientID.lowercased() else {
            throw .clientAssertionSubjectInvalid()
        }
        try checkValidity(of: jwt, now: now)
        guard let jti = jwt.string("jti"), !jti.isEmpty else {
            throw .malformedClientAssertion("The client assertion must contain a 'jti' claim.")
        }
    }

    /// RS256 or PS256, the algorithms Entra accepts for client assertions (its own or a federated issuer's).
    static func checkAlgorithm(of jwt: ParsedJWT) throws(IdentityError) {
        do { try verifier.checkAlgorithm(of: jwt) } catch {
            throw .malformedClientAssertion("The client assertion algorithm '\(jwt.jws.algorithm ?? "none")' is not supported; sign it with RS256 or PS256.")
        }
    }

    /// An `exp`, and now within `nbf`…`exp` give or take the verifier's skew.
    static func checkValidity(of jwt: ParsedJWT, now: Date) throws(IdentityError) {
        do { try verifier.checkValidity(of: jwt, now: now) } catch {
            guard case .outOfRange(let expiry, let notBefore, _) = error else {
                throw .malformedClientAssertion("The client assertion must contain an 'exp' claim.")
            }
            throw .clientAssertionOutOfRange(now: now, notBefore: notBefore, expiry: expiry)
        }
    }

    /// The certificate the header names by thumbprint (`x5t`, `x5t#S256`); without a thumbprint, the
    /// first registered certificate whose key verifies the signature.
    static func signingCertificate(for jwt: ParsedJWT, application app: Application) throws(IdentityError) -> X509Certificate {
        let certificates = app.certificates.compactMap { try? X509Certificate(pem: $0) }
        let sha1 = jwt.header["x5t"]?.string
        let sha256 = jwt.header["x5t#S256"]?.string
        if sha1 != nil || sha256 != nil {
            let named = certificates.first { cert in
                (sha1.flatMap(Base64URL.decode) == cert.sha1Thumbprint) || (sha256.flatMap(Base64URL.decode) == cert.sha256Thumbprint)
            }
            guard let named else {
                let shown = sha1.flatMap(Base64URL.decode).map(hex) ?? sha256.flatMap(Base64URL.decode).map(hex) ?? ""
                throw .clientAssertionCertificateNotRegistered(thumbprint: shown, clientID: app.clientID)
            }
            return named
        }
        if let verifying = certificates.first(where: { cert in (try? cert.publicKey).map { verifier.isSigned(jwt, byOneOf: [$0]) } ?? false }) {
            return verifying
        }
        throw .clientAssertionCertificateNotRegistered(thumbprint: "", clientID: app.clientID)
    }

    /// The certificate a client put in the assertion's `x5c` header (MSAL's `public_certificate`, SNI).
    /// MSAL Python keeps the PEM line breaks inside the `x5c` value: whitespace is dropped.
    static func embeddedCertificate(of assertion: String) -> X509Certificate? {
        guard let jwt = ParsedJWT(assertion), let chain = jwt.header["x5c"]?.strings, let first = chain.first else { return nil }
        let base64 = Array(first.filter { !$0.isWhitespace })
        guard !base64.isEmpty, Data(base64Encoded: String(base64)) != nil else { return nil }
        let lines = stride(from: 0, to: base64.count, by: 64).map { String(base64[$0..<min($0 + 64, base64.count)]) }
        return try? X509Certificate(pem: "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n")
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.uppercase(bytes) }
}

/// Where a client assertion may be addressed (RFC 7523 §3: the authorization server, by its token endpoint or,
/// as newer Microsoft libraries send it, its issuer): a v2 or v1 token endpoint or issuer of a tenant this
/// directory holds (the token endpoint also under common, organizations or consumers, B2C's with its policy),
/// at the host the request came to or at a Microsoft login host (an assertion built for the real cloud).
package struct AssertionAudience: Sendable {
    let requestHost: String?
    let directory: Directory

    package init(requestHost: String?, directory: Directory) {
        self.requestHost = requestHost
        self.directory = directory
    }

    static let microsoftLoginHosts: Set<String> = [
        "login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "sts.windows.net", "login.microsoftonline.us",
        "login.chinacloudapi.cn", "login.partner.microsoftonline.cn", "login.microsoftonline.de",
    ]

    func admits(_ audience: String) -> Bool {
        guard let url = URLComponents(string: audience), ["https", "http"].contains(url.scheme?.lowercased() ?? ""),
              let host = url.host?.lowercased(), url.query == nil, url.fragment == nil else { return false }
        guard host == requestHost?.lowercased() || Self.microsoftLoginHosts.contains(host)
                || host.hasSuffix(".b2clogin.com") || host.hasSuffix(".ciamlogin.com") else { return false }
        var segments = url.path.lowercased().split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if segments.last == "" { segments.removeLast() }
        if segments.first == "tfp" { segments.removeFirst() }
        guard let tenantSegment = segments.first else { return false }
        let rest = Array(segments.dropFirst())
        let namesTenant = directory.tenant(matching: tenantSegment) != nil
        // The issuers: `https://host/{tenant}/v2.0` and v1's `https://host/{tenant}/`.
        if rest.isEmpty || rest == ["v2.0"] { return namesTenant }
        let endpoint = rest.first.map { $0.hasPrefix("b2c_1") } == true ? Array(rest.dropFirst()) : rest
        guard endpoint == ["oauth2", "v2.0", "token"] || endpoint == ["oauth2", "token"] else { return false }
        return namesTenant || ["common", "organizations", "consumers"].contains(tenantSegment)
    }
}
