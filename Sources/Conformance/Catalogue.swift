import FoundationGaps
import IdentityPlatform
import LocatedJSON

/// Every conformance case, in the order reports list them.
package enum Catalogue {
    package static let all: [ConformanceCase] = protocolSafety + errorHandling + resilience + lifecycle + graph + b2c + externalID + nativeAuth + confidential + daemon + mcp

    package static func named(_ id: String) -> ConformanceCase? { all.first { $0.id == id } }

    /// Cases whose id matches the glob (`*` any run of characters, `?` one), or all of them.
    /// `client`: only the cases that judge that kind of app.
    package static func select(glob: String?, level: LevelFilter = .all, client: ClientKind? = nil) -> [ConformanceCase] {
        all.filter { conformanceCase in
            (glob.map { Glob.matches($0, conformanceCase.id) } ?? true) && (level == .all || conformanceCase.level == .required)
                && (client.map(conformanceCase.clients.contains) ?? true)
        }
    }

    package enum LevelFilter: String, Sendable, CaseIterable { case required, all }
}

/// Case-id globs: `resilience.*`, `*retry*`, `graph.?ae-*`. Several globs separated by commas.
package enum Glob {
    package static func matches(_ pattern: String, _ text: String) -> Bool {
        pattern.split(separator: ",").contains { matchOne(Array($0.trimmingCharacters(in: .whitespaces)), Array(text)) }
    }

    private static func matchOne(_ pattern: [Character], _ text: [Character]) -> Bool {
        // Iterative matching with one backtrack point per star: linear enough for ids.
        var p = 0, t = 0, star = -1, mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// The clauses cases cite, each written once.
enum Source {
    static let rfc7636 = Citation("RFC 7636 §4.2–4.5 (PKCE, S256)", "https://www.rfc-editor.org/rfc/rfc7636#section-4.2")
    static let oidcSignature = Citation("OIDC Core 1.0 §3.1.3.7 item 6 (the signature; TLS may stand in for it only for an id_token from the token endpoint)", "https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation")
    static let oidcKeyRotation = Citation("OIDC Core 1.0 §10.1.1 (rotation of signing keys: refetch the JWK Set for an unfamiliar kid)", "https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys")
    static let jwtAlgorithmVerification = Citation("RFC 8725 §3.1 (JWT best practices: verify the algorithm; never accept none unless expected)", "https://www.rfc-editor.org/rfc/rfc8725#section-3.1")
    static let signingKeyRollover = Citation("Microsoft identity platform: signing key rollover", "https://learn.microsoft.com/entra/identity-platform/signing-key-rollover")
    static let oidcIDToken = Citation("OIDC Core 1.0 §3.1.3.7 (ID Token validation)", "https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation")
    static let oidcNonce = Citation("OIDC Core 1.0 §3.1.3.7 item 11, §15.5.2 (nonce)", "https://openid.net/specs/openid-connect-core-1_0.html#NonceNotes")
    static let oidcRefresh = Citation("OIDC Core 1.0 §12.2 (refresh: iss, sub, aud must match the original ID Token)", "https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse")
    static let freshPerRequest = Citation("RFC 7636 §4.1 (a new code_verifier for each authorization request), RFC 6749 §10.12 (state bound to the user agent's session), OIDC Core 1.0 §15.5.2 (a nonce per session)", "https://www.rfc-editor.org/rfc/rfc7636#section-4.1")
    static let rfc6749ClientCredentialsInBody = Citation("RFC 6749 §2.3.1 (client credentials only in the request body to the token endpoint, never in a request URI), §3.1 (the authorization endpoint is reached by the user agent)", "https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1")
    static let rfc9700PKCE = Citation("RFC 9700 §2.1.1 (public clients MUST use PKCE; confidential clients are RECOMMENDED to)", "https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1")
    static let rfc6749State = Citation("RFC 6749 §10.12 (state against cross-site request forgery)", "https://www.rfc-editor.org/rfc/rfc6749#section-10.12")
    static let rfc6749Error = Citation("RFC 6749 §4.1.2.1 (error response on the redirect)", "https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1")
    static let rfc6749TokenError = Citation("RFC 6749 §5.2 (token endpoint errors)", "https://www.rfc-editor.org/rfc/rfc6749#section-5.2")
    static let rfc9110RetryAfter = Citation("RFC 9110 §10.2.3 (Retry-After: HTTP-date or delay-seconds)", "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3")
    static let rfc6585 = Citation("RFC 6585 §4 (429 Too Many Requests)", "https://www.rfc-editor.org/rfc/rfc6585#section-4")
    static let rfc9700Rotation = Citation("RFC 9700 §4.14.2 (refresh token rotation)", "https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2")
    static let rfc8628SlowDown = Citation("RFC 8628 §3.5 (device flow: slow_down adds 5 seconds to the polling interval)", "https://www.rfc-editor.org/rfc/rfc8628#section-3.5")
    static let rfc8628Polling = Citation("RFC 8628 §3.4–3.5 (poll no more often than the interval, 5 seconds by default; authorization_pending: keep polling)", "https://www.rfc-editor.org/rfc/rfc8628#section-3.5")
    static let rfc8628Errors = Citation("RFC 8628 §3.5 (device access token response: access_denied and expired_token end the polling)", "https://www.rfc-editor.org/rfc/rfc8628#section-3.5")
    static let oidcDiscoveryIssuer = Citation("OpenID Connect Discovery 1.0 §4.3 (the issuer must be the one the configuration was asked for)", "https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationValidation")
    static let rfc6750 = Citation("RFC 6750 §3.1 (invalid_token, insufficient_scope)", "https://www.rfc-editor.org/rfc/rfc6750#section-3.1")

    static let resilience = Citation("Microsoft Entra: increase resilience of authentication in client applications", "https://learn.microsoft.com/entra/architecture/resilience-client-app")
    static let errorCodes = Citation("Microsoft identity platform: handling error codes (branch on error/suberror, not AADSTS numbers)", "https://learn.microsoft.com/entra/identity-platform/reference-error-codes#handling-error-codes-in-your-application")
    static let errorHandling = Citation("MSAL error handling: interaction required and its classifications", "https://learn.microsoft.com/entra/identity-platform/msal-error-handling-python")
    static let authCodeFlow = Citation("Microsoft identity platform: OAuth 2.0 authorization code flow", "https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow")
    static let consent = Citation("Microsoft identity platform: permissions and consent (incremental consent)", "https://learn.microsoft.com/entra/identity-platform/permissions-consent-overview")
    static let refreshTokens = Citation("Microsoft identity platform: refresh tokens (revocation, lifetime, rotation)", "https://learn.microsoft.com/entra/identity-platform/refresh-tokens")
    static let accessTokens = Citation("Microsoft identity platform: access token lifetime", "https://learn.microsoft.com/entra/identity-platform/access-tokens#token-lifetime")
    static let cae = Citation("Continuous access evaluation in apps (cp1, claims challenge)", "https://learn.microsoft.com/entra/identity-platform/app-resilience-continuous-access-evaluation")
    static let claimsChallenge = Citation("Claims challenges, claims requests and client capabilities", "https://learn.microsoft.com/entra/identity-platform/claims-challenge")
    static let graphThrottling = Citation("Microsoft Graph throttling guidance (Retry-After)", "https://learn.microsoft.com/graph/throttling")
    static let promptNone = Citation("OIDC Core 1.0 §3.1.2.1 (prompt=none: no page is shown; login_required when the user is not signed in)", "https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest")
    static let oidcAuthenticationError = Citation("OIDC Core 1.0 §3.1.2.6 (login_required, interaction_required, consent_required)", "https://openid.net/specs/openid-connect-core-1_0.html#AuthError")
    static let issuerValidation = Citation("Microsoft identity platform: validate the issuer and tid of a token against the tenant you trust", "https://learn.microsoft.com/entra/identity-platform/access-tokens#validate-the-issuer")
    static let signOut = Citation("Microsoft identity platform: sign a user out (remove the account and its tokens from the cache)", "https://learn.microsoft.com/entra/identity-platform/scenario-desktop-acquire-token-interactive#remove-accounts-from-the-cache")
    static let graphPaging = Citation("Microsoft Graph: paging (follow @odata.nextLink as an opaque URL until it is absent)", "https://learn.microsoft.com/graph/paging")
    static let graphErrors = Citation("Microsoft Graph error responses", "https://learn.microsoft.com/graph/errors")
    static let b2cReset = Citation("Azure AD B2C: password reset with AADB2C90118", "https://learn.microsoft.com/azure/active-directory-b2c/add-password-reset-policy")
    static let externalIDTokens = Citation("Microsoft Entra External ID: tokens (issuer https://{tenantid}.ciamlogin.com/{tenantid}/v2.0)", "https://learn.microsoft.com/entra/external-id/customers/concept-tokens")
    static let externalIDPasswordReset = Citation("Microsoft Entra External ID: self-service password reset", "https://learn.microsoft.com/entra/external-id/customers/how-to-enable-password-reset-customers")
    static let nativeAuthAPI = Citation("Microsoft Entra External ID: native authentication API reference (initiate, challenge, token; challenge_type redirect sends the app to the browser)", "https://learn.microsoft.com/entra/identity-platform/reference-native-authentication-api")
    static let msalIOSTokenValidator = Citation("MSAL for iOS/macOS MSALNativeAuthTokenResponseValidator.swift (invalid_oob_value, mfa_required and registration_required each lead to their own state)", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/network/responses/validator/token/MSALNativeAuthTokenResponseValidator.swift#L94-L128")
    static let msalIOSSubmitCodeFailure = Citation("MSAL for iOS/macOS MSALNativeAuthSignInController.swift processSubmitCodeFailure (a refused code keeps the code-required state and its continuation token)", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/controllers/sign_in/MSALNativeAuthSignInController.swift#L634-L658")
    static let msalIOSResendCode = Citation("MSAL for iOS/macOS MSALNativeAuthSignInController.swift resendCode (a new code from the challenge endpoint with the flow's continuation token; a failed resend keeps the earlier state)", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/controllers/sign_in/MSALNativeAuthSignInController.swift#L327-L372")
    static let msalIOSPasswordResetRequired = Citation("MSAL for iOS/macOS MSALNativeAuthTokenResponseValidator.swift and MSALNativeAuthErrorMessage.swift (AADSTS50142: \"Please reset the password and perform a new sign in operation\")", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/network/responses/validator/token/MSALNativeAuthTokenResponseValidator.swift#L150-L160")
    static let msalIOSCapabilities = Citation("MSAL for iOS/macOS MSALNativeAuthSignInInitiateRequestParameters.swift (the capabilities the app was configured with, mfa_required and registration_required, sent on initiate)", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/network/parameters/sign_in/MSALNativeAuthSignInInitiateRequestParameters.swift#L39")
    static let msalIOSBrowserRequired = Citation("MSAL for iOS/macOS MSALNativeAuthSignInInitiateValidatedResponse.swift and SignInStartError.swift (challenge_type redirect ends the native flow with browserRequired)", "https://github.com/AzureAD/microsoft-authentication-library-for-objc/blob/fae6844ee410aab8d01fc3b0b585c950c3a6fa98/MSAL/src/native_auth/public/state_machine/error/SignInStartError.swift#L31-L53")
    static let b2cEditProfile = Citation("Azure AD B2C: profile editing user flow", "https://learn.microsoft.com/azure/active-directory-b2c/add-profile-editing-policy")
    static let b2cErrors = Citation("Azure AD B2C error codes (AADB2C90091 cancelled)", "https://learn.microsoft.com/azure/active-directory-b2c/error-codes")

    static let clientSecrets = Citation("Microsoft identity platform: application credentials (client secrets, their expiry)", "https://learn.microsoft.com/entra/identity-platform/how-to-add-credentials")
    static let certificateCredentials = Citation("Microsoft identity platform: certificate credentials (client assertions)", "https://learn.microsoft.com/entra/identity-platform/certificate-credentials")
    static let identityWebCertificateReload = Citation("Microsoft.Identity.Web TokenAcquisition.cs (reload the certificate and retry once on AADSTS700027, 700024, 7000214, 1000502, 7000274, 7000277; never on 7000215 or 7000222)", "https://github.com/AzureAD/microsoft-identity-web/blob/master/src/Microsoft.Identity.Web.TokenAcquisition/TokenAcquisition.cs")

    static let msalAppTokenCache = Citation("Microsoft identity platform: acquire and cache tokens with MSAL (acquire_token_for_client looks up the cache first)", "https://learn.microsoft.com/entra/identity-platform/msal-acquire-cache-tokens")
    static let clientCredentialsFlow = Citation("Microsoft identity platform: OAuth 2.0 client credentials flow", "https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow")

    static let msalNetRetry = Citation("MSAL.NET Http/Retry/DefaultRetryPolicy.cs (the token endpoint's 5xx answers and timeouts retried after 1 second: once, three times in newer versions) and its docs, \"Retry policies\"", "https://github.com/AzureAD/microsoft-authentication-library-for-dotnet/blob/main/src/client/Microsoft.Identity.Client/Http/Retry/DefaultRetryPolicy.cs")
    static let msalNetProactiveRefresh = Citation("MSAL.NET Internal/Requests/Silent/SilentRequestHelper.cs (after refresh_in, the cached token is returned and a refresh fired in the background, at refresh_on ± 300 s of jitter)", "https://github.com/AzureAD/microsoft-authentication-library-for-dotnet/blob/main/src/client/Microsoft.Identity.Client/Internal/Requests/Silent/SilentRequestHelper.cs")
    static let msalThrottling = Citation("MSAL for Python msal/throttled_http_client.py", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/throttled_http_client.py")
    static let msalOIDC = Citation("MSAL for Python msal/oauth2cli/oidc.py (nonce, state)", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/oauth2cli/oidc.py")
    static let msalApplication = Citation("MSAL for Python msal/application.py (silent flow, refresh_in, token reuse)", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/application.py")
    static let msalDeviceFlow = Citation("MSAL for Python msal/oauth2cli/oauth2.py (device flow polling, slow_down)", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/oauth2cli/oauth2.py")
    static let deviceCodeFlow = Citation("Microsoft identity platform: OAuth 2.0 device authorization grant", "https://learn.microsoft.com/entra/identity-platform/v2-oauth2-device-code")
    static let msalAuthority = Citation("MSAL for Python msal/authority.py (has_valid_issuer, for oidc_authority only)", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/authority.py")
    static let msalCache = Citation("MSAL for Python msal/token_cache.py (refresh token replaced on rotation)", "https://github.com/AzureAD/microsoft-authentication-library-for-python/blob/dev/msal/token_cache.py")
}

/// Rules many cases share, each in scenario-file syntax.
enum Rules {
    /// MSAL treats an access token that expires within 5 minutes as expired: with 2-minute tokens
    /// every silent call refreshes, which is how a case reaches the token endpoint's refresh path.
    static let shortLivedTokens = #"{"note": "Access tokens live 2 minutes, so every silent call refreshes.", "match": {"endpoint": "token"}, "action": {"tokenLifetimes": {"accessToken": 120}}, "times": "always"}"#

    /// Device-code polls answered with the platform's own `error` (its error, code and wording), `times` as
    /// written in a scenario file (`3`, `"always"`).
    static func devicePoll(answered error: IdentityError, times: JSONValue) -> String {
        rule(match: [("endpoint", .string("token")), ("grantType", .string("device_code"))],
             action: [("oauthError", .object([("error", .string(error.error)), ("code", .string(error.prefixedCode)), ("message", .string(error.message))]))],
             times: times)
    }

    /// A rule a case computes (a status, a code, a message), in scenario-file syntax: values are written
    /// by the JSON writer, never spliced into text.
    static func rule(match: [(String, JSONValue)], action: [(String, JSONValue)], times: JSONValue? = nil) -> String {
        var members: [(String, JSONValue)] = [("match", .object(match)), ("action", .object(action))]
        if let times { members.append(("times", times)) }
        return JSONValue.object(members).compactText
    }
}
