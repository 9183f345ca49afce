import EntraCrypto
import EntraHTTP
import Foundation
import HeadlessBrowser
import Synchronization

/// What a sign-in through the pages gave the app: the authorization code, and the tokens it was
/// redeemed for.
public struct FakeEntraSignIn: Sendable {
    /// The code the pages delivered to the redirect URI (already redeemed: a second redemption fails).
    public var code: String
    public var accessToken: String
    public var idToken: String?
    public var refreshToken: String?
    /// The scopes granted, as the token response lists them.
    public var scope: String
    /// Seconds until the access token expires, from the token response.
    public var expiresIn: Int
    /// Pages and redirects walked from /authorize to the redirect URI.
    public var pagesWalked: Int
}

/// The code a sign-in delivered, before redemption: for tests of the token endpoint itself.
public struct FakeEntraAuthorization: Sendable {
    public var code: String
    /// The PKCE verifier whose challenge went to /authorize; the token request must send it.
    public var codeVerifier: String
    public var redirectURI: String
    public var pagesWalked: Int
}

extension FakeEntraClient {
    /// Signs `user` in through FakeEntra's pages as a browser would (authorize, sign-in form, consent,
    /// redirect) with PKCE, and redeems the code at the token endpoint.
    ///
    ///     let signIn = try await client.signIn(user: "adele.vance@contoso.onmicrosoft.com", password: "Passw0rd!",
    ///                                          clientID: clientID, scopes: ["openid", "offline_access", "User.Read"])
    ///     let me = try await client.execute(.get, "/v1.0/me", headers: ["Authorization": "Bearer \(signIn.accessToken)"])
    ///
    /// `tenant` is the authority's tenant segment (`common`, `organizations`, a tenant id or domain).
    /// Throws when the pages end anywhere but the redirect URI (a wrong password, a scenario's error).
    public func signIn(user: String, password: String, clientID: String, scopes: [String] = ["openid", "profile", "offline_access"],
                       redirectURI: String = FakeEntraClient.defaultRedirectURI, tenant: String = "common",
                       clientSecret: String? = nil) async throws -> FakeEntraSignIn {
        let authorization = try await authorize(user: user, password: password, clientID: clientID, scopes: scopes, redirectURI: redirectURI, tenant: tenant)
        var form: [(String, String)] = [("grant_type", "authorization_code"), ("client_id", clientID), ("code", authorization.code),
                                        ("redirect_uri", redirectURI), ("code_verifier", authorization.codeVerifier), ("scope", scopes.joined(separator: " "))]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        var request = try browserRequest(.post, "/\(tenant)/oauth2/v2.0/token")
        request.headers.set("Content-Type", "application/x-www-form-urlencoded")
        request.body = Array(FormParameters(form).encoded.utf8)
        let response = FakeEntraResponse(try await send(request))
        guard response.status == 200 else { throw FakeEntraTestingError.unexpected("redeeming the code at the token endpoint", response) }
        let tokens = try response.json()
        guard let accessToken = tokens["access_token"] as? String else { throw FakeEntraTestingError.unexpected("the token response has no access_token", response) }
        return FakeEntraSignIn(code: authorization.code, accessToken: accessToken, idToken: tokens["id_token"] as? String,
                               refreshToken: tokens["refresh_token"] as? String, scope: tokens["scope"] as? String ?? "",
                               expiresIn: tokens["expires_in"] as? Int ?? 0, pagesWalked: authorization.pagesWalked)
    }

    /// Walks the pages from /authorize to the redirect URI and returns the code, unredeemed.
    public func authorize(user: String, password: String, clientID: String, scopes: [String] = ["openid", "profile", "offline_access"],
                          redirectURI: String = FakeEntraClient.defaultRedirectURI, tenant: String = "common") async throws -> FakeEntraAuthorization {
        guard let redirect = BrowserURL(redirectURI) else { throw FakeEntraTestingError("redirectURI must be an absolute http(s) URL: \(redirectURI)") }
        let verifier = SecureRandom.base64URLString(byteCount: 32)
        let state = SecureRandom.base64URLString(byteCount: 12)
        let query = FormParameters([
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scopes.joined(separator: " ")),
            ("state", state), ("nonce", SecureRandom.base64URLString(byteCount: 12)),
            ("code_challenge", PKCE.challenge(for: verifier, method: .s256)), ("code_challenge_method", "S256"),
        ])
        let start = try browserRequest(.get, "/\(tenant)/oauth2/v2.0/authorize?\(query.encoded)").url.description
        let credentials = SignInCredentials(username: user, password: password)
        let (delivered, pages) = try await perform { [self] transport in
            let catcher = RedirectCatcher(server: transport, redirect: redirect)
            var walker = SignInWalker(transport: catcher, credentials: credentials)
            walker.cookies = cookies.withLock { $0 }
            defer { cookies.withLock { [jar = walker.cookies] in $0 = jar } }
            do {
                let delivery = try walker.walk(start)
                return (delivery.form, delivery.pagesWalked)
            } catch {
                throw FakeEntraTestingError("the sign-in of \(user) did not reach \(redirectURI): \(error)")
            }
        }
        if let error = delivered["error"] {
            throw FakeEntraTestingError("the sign-in of \(user) ended with \(error): \(delivered["error_description"] ?? "")")
        }
        guard delivered["state"] == state else { throw FakeEntraTestingError("the redirect carried state \(delivered["state"] ?? "none"), not the one sent") }
        guard let code = delivered["code"] else { throw FakeEntraTestingError("the redirect carried no code: \(delivered.encoded)") }
        return FakeEntraAuthorization(code: code, codeVerifier: verifier, redirectURI: redirectURI, pagesWalked: pages)
    }

    /// A loopback redirect URI, as public clients (MSAL's) use; nothing needs to listen there.
    public static let defaultRedirectURI = "http://localhost:53117/"
}
