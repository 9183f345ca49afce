package import EntraCrypto
package import EntraHTTP
package import Foundation
import Synchronization
package import ExchangeKernel
package import IdentityPlatform

/// A directory, a frozen clock and a signing key for the token-side tests.
package enum TokenFixtures {
    package static let start = Date(timeIntervalSince1970: 1_900_000_000)
    package static let credential: SigningCredential = try! SigningCredential.generate()
    package static let contoso = Directory.contosoTenantID
    package static let adele = "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"

    package static let webAppID = "11111111-1111-4111-8111-111111111111"
    package static let webSecret = "web-app-secret-value"
    package static let apiAppID = "22222222-2222-4222-8222-222222222222"
    package static let nativeAppID = "33333333-3333-4333-8333-333333333333"
    package static let familyAppA = "44444444-4444-4444-8444-444444444444"
    package static let familyAppB = "55555555-5555-4555-8555-555555555555"
    package static let certAppID = "66666666-6666-4666-8666-666666666666"
    package static let clientCertificate: SigningCredential = try! SigningCredential.generate(commonName: "client cert")

    package static var directory: Directory {
        var d = Directory.embeddedDefault
        d.applications = [
            Application(
                clientID: webAppID, displayName: "Contoso Web", tenantID: contoso, isPublicClient: false,
                secrets: [.init(value: webSecret)], redirectURIs: ["https://app.example/callback"],
                requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", scopes: ["User.Read", "Mail.Read"], roles: ["User.Read.All"]),
                                         .init(resource: "api://\(apiAppID)", scopes: ["access_as_user"], roles: ["Data.Read"])]
            ),
            Application(
                clientID: apiAppID, displayName: "Contoso API", tenantID: contoso, isPublicClient: false,
                secrets: [.init(value: "api-secret")], requiredResourceAccess: [.init(resource: Resource.graphAppID, scopes: ["User.Read"])],
                identifierURIs: ["api://\(apiAppID)"],
                exposedScopes: ["access_as_user", "Data.Write"], appRoles: ["Data.Read", "Data.Admin"], accessTokenAcceptedVersion: 2
            ),
            Application(clientID: nativeAppID, displayName: "Contoso Mobile", redirectURIs: ["msauth.com.contoso.mobile://auth", "http://localhost/callback"]),
            Application(clientID: familyAppA, displayName: "Family A", familyID: "1"),
            Application(clientID: familyAppB, displayName: "Family B", familyID: "1"),
            Application(clientID: certAppID, displayName: "Cert Daemon", tenantID: contoso, isPublicClient: false, certificates: [clientCertificate.certificate.pem]),
        ]
        return d
    }

    package static func service(options: IdentityOptions = .init(), directory: Directory = directory, limits: StateLimits = .standard) -> (IdentityService, VirtualClock) {
        let clock = VirtualClock(frozenAt: start)
        return (IdentityService(directory: directory, keys: SigningKeyRing(current: credential), clock: clock, options: options, limits: limits), clock)
    }

    package static let origin = "https://login.fake.test"
    package static let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)

    package static func post(_ path: String, _ form: [(String, String)], headers: HTTPHeaders = [:]) -> HTTPRequest {
        var h = headers
        h.set("Host", "login.fake.test")
        h.set("Content-Type", "application/x-www-form-urlencoded")
        return HTTPRequest(method: "POST", target: path, headers: h, body: Array(FormParameters(form).encoded.utf8))
    }

    package static func get(_ target: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var h = headers
        h.set("Host", "login.fake.test")
        return HTTPRequest(method: "GET", target: target, headers: h)
    }

    package static func send(_ request: HTTPRequest, to service: IdentityService, context: ConnectionFacts = context, directives: ScenarioDirectives = .init()) -> HTTPResponse {
        WorldRouter([EntraHandler(service: service)])
            .respond(to: request, context: ExchangeContext(connection: context, route: RouteResolver([EntraRoutes()]).route(request), directives: directives))
    }

    package static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// Decodes a JWT we issued, checking its signature against the service's key.
    package static func claims(_ token: String?) -> [String: Any]? {
        guard let token, let jws = JWS.decode(token), JWS.verifyRS256(jws, key: credential.privateKey.publicKey) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(jws.payloadJSON)) as? [String: Any]
    }

    /// What /authorize leaves behind after a sign-in: a code record in the platform state.
    @discardableResult
    package static func issueCode(
        _ service: IdentityService, code: String = "test-code", clientID: String = nativeAppID, userID: String = adele,
        scopes: [String] = ["openid", "profile", "offline_access", "https://graph.microsoft.com/User.Read"],
        redirectURI: String = "msauth.com.contoso.mobile://auth", verifier: String? = "verifier-0123456789-0123456789-0123456789-abcdefgh",
        method: String = "S256", nonce: String? = "nonce-123", methods: [String] = ["pwd"]
    ) -> String {
        let now = service.clock.now()
        let grant = GrantContext(clientID: clientID, userID: userID, tenantID: contoso, scopes: scopes, resourceAppID: nil, endpointVersion: .v2, authTime: now.addingTimeInterval(-30), sessionID: "session-1", authenticationMethods: methods)
        let challenge = verifier.map { PKCE.challenge(for: $0, method: method == "S256" ? .s256 : .plain) }
        service.issueCode(code, grant: grant, redirectURI: redirectURI, codeChallenge: challenge, codeChallengeMethod: verifier == nil ? nil : method, nonce: nonce, now: now)
        // /authorize records the consent the user gave on its page.
        service.directory.withLock { directory in
            let client = directory.application(clientID: clientID) ?? ClientResolver.lenientApplication(clientID: clientID)
            if let request = try? ScopeRequest.parse(scopes: scopes, directory: directory), let resource = request.resource, let user = directory.user(id: userID) {
                directory.recordConsent(client: client, resource: resource, permissions: directory.delegatedPermissions(for: request, client: client, userID: userID, tenantID: user.tenantID), user: user)
            }
        }
        return code
    }

    package static func redeemForm(code: String = "test-code", clientID: String = nativeAppID, verifier: String = "verifier-0123456789-0123456789-0123456789-abcdefgh", redirectURI: String = "msauth.com.contoso.mobile://auth", scope: String = "openid profile offline_access https://graph.microsoft.com/User.Read") -> [(String, String)] {
        [("grant_type", "authorization_code"), ("client_id", clientID), ("code", code), ("code_verifier", verifier),
         ("redirect_uri", redirectURI), ("scope", scope), ("client_info", "1")]
    }

    package static let tokenPath = "/\(contoso)/oauth2/v2.0/token"

    package static func errorCode(_ response: HTTPResponse) -> Int? {
        (json(response)["error_codes"] as? [Int])?.first
    }
}
