import ExchangeKernel
import FoundationGaps
import LocatedJSON

/// How the result of an interactive flow reaches the client.
enum AuthorizationReply: Sendable, Equatable {
    /// A browser redirect to the client's redirect URI.
    case redirect(uri: String, mode: ResponseMode, state: String?)
    /// The device authorization grant: the result is recorded for the polling device.
    case device(deviceCode: String)
}

package enum ResponseMode: String, Sendable {
    case query
    case fragment
    case formPost = "form_post"
}

package enum Prompt: String, Sendable, CaseIterable {
    /// `prompt=none`: no page may be shown.
    case silent = "none"
    case login
    case selectAccount = "select_account"
    case consent
    case create
    /// An administrator consents for every user of the organisation (admin-only permissions included).
    case adminConsent = "admin_consent"
    /// ADAL's "refresh session": the user authenticates again, as with `login`.
    case refreshSession = "refresh_session"
}

/// An /authorize request once its parameters are validated, re-derived from the stored parameters on
/// every page of the flow so that nothing a page posts can change what the client asked for.
struct AuthorizationRequest: SignInRequest, Sendable {
    var version: EndpointVersion
    var tenantSegment: String
    var selector: TenantSelector
    var client: ResolvedClient
    var reply: AuthorizationReply
    var scopes: ScopeRequest
    /// prompt, login_hint, max_age, nonce and PKCE, read as B2C reads them.
    var signIn: SignInParameters
    var domainHint: String?
    var claimsRequest: String?
    var clientCapabilities: [String]
    var wantsClientInfo: Bool

    var application: Application { client.application }

    /// The user must type their credentials even when the browser session knows them.
    var forcesSignIn: Bool { prompt == .login || prompt == .refreshSession }

    /// Why a request cannot proceed: shown on an error page when the client or its redirect URI cannot be
    /// trusted, otherwise sent back to the redirect URI.
    enum Failure: Error, Sendable {
        case page(IdentityError)
        case reply(IdentityError, AuthorizationReply)
    }

    /// Parameter names FakeEntra keeps for a device-code flow in `PendingAuthorization.parameters`.
    static let deviceCodeParameter = "fakeentra_device_code"

    static func parse(_ parameters: [String: String], version: EndpointVersion, tenantSegment: String, directory: Directory, options: IdentityOptions) -> Result<AuthorizationRequest, Failure> {
        do throws(Failure) {
            return .success(try parseOrThrow(parameters, version: version, tenantSegment: tenantSegment, directory: directory, options: options))
        } catch {
            return .failure(error)
        }
    }

    private static func parseOrThrow(_ p: [String: String], version: EndpointVersion, tenantSegment: String, directory: Directory, options: IdentityOptions) throws(Failure) -> AuthorizationRequest {
        func value(_ name: String) -> String? { p[name].flatMap { $0.isEmpty ? nil : $0 } }

        // Until the redirect URI is trusted, every problem is shown on a page (never redirected).
        let selector: TenantSelector
        do throws(IdentityError) { selector = try TenantSelector(segment: tenantSegment, directory: directory) } catch { throw .page(error) }
        guard let clientID = value("client_id") else { throw .page(.missingParameter("client_id")) }
        let authorityTenant: Tenant? = if case .specific(let tenant) = selector { tenant } else { nil }
        let client: ResolvedClient
        do throws(ClientRefusal) {
            client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: options, tenant: authorityTenant)
        } catch { throw .page(error.entra()) }

        let reply: AuthorizationReply
        if let deviceCode = value(deviceCodeParameter) {
            reply = .device(deviceCode: deviceCode)
        } else {
            guard let redirectURI = value("redirect_uri") ?? client.application.allRedirectURIs.first else {
                throw .page(.missingParameter("redirect_uri"))
            }
            do throws(IdentityError) { try ClientResolver.validateRedirectURI(redirectURI, for: client) } catch { throw .page(error) }
            let state = p["state"]
            let modeText = value("response_mode")?.lowercased() ?? "query"
            guard let mode = ResponseMode(rawValue: modeText) else {
                throw .reply(.invalidResponseMode(modeText), .redirect(uri: redirectURI, mode: .query, state: state))
            }
            reply = .redirect(uri: redirectURI, mode: mode, state: state)
            guard let responseType = value("response_type") else { throw .reply(.missingParameter("response_type"), reply) }
            guard responseType.split(separator: " ").map({ $0.lowercased() }) == ["code"] else {
                throw .reply(.unsupportedResponseType(responseType), reply)
            }
        }

        func fail(_ error: IdentityError) -> Failure { .reply(error, reply) }

        let scopes: ScopeRequest
        do throws(IdentityError) {
            switch version {
            case .v2:
                guard let scope = value("scope") else { throw .missingParameter("scope") }
                scopes = try ScopeRequest.parse(scope, directory: directory, options: options)
                try ResourceIndicator.check(p["resource"], against: scopes)
            case .v1:
                if let resource = value("resource") {
                    scopes = try ScopeRequest.parse(v1Resource: resource, scope: p["scope"], directory: directory)
                } else {
                    // ADAL always names a resource; without one the v1 endpoint signs the user in only.
                    scopes = try ScopeRequest.parse("openid profile", directory: directory, options: options)
                }
            }
        } catch { throw fail(error) }

        let signIn: SignInParameters
        do throws(IdentityError) { signIn = try SignInParameters(p, dialect: .entra) } catch { throw fail(error) }

        var capabilities: [String] = []
        let claims = value("claims")
        if let claims {
            do throws(IdentityError) { capabilities = try ClaimsRequest.clientCapabilities(in: claims) } catch { throw fail(error) }
        }

        return AuthorizationRequest(
            version: version, tenantSegment: tenantSegment, selector: selector, client: client, reply: reply,
            scopes: scopes, signIn: signIn, domainHint: value("domain_hint"), claimsRequest: claims, clientCapabilities: capabilities,
            wantsClientInfo: p["client_info"] == "1"
        )
    }
}

/// The `claims` request parameter (OIDC §5.5), as far as the authorize flow reads it.
enum ClaimsRequest {
    /// `{"access_token":{"xms_cc":{"values":["cp1"]}}}` → `["cp1"]`. Invalid JSON is an error, as in Entra.
    static func clientCapabilities(in json: String) throws(IdentityError) -> [String] {
        guard let object = LocatedJSON.object(body: json.utf8) else { throw .invalidClaimsParameter() }
        guard let capability = object["access_token"]?["xms_cc"] else { return [] }
        if let values = capability["values"]?.strings { return values }
        if let single = capability["value"]?.string { return [single] }
        return []
    }

    /// True when the claims request asks for `amr` including `mfa` (or an `acr` naming MFA) in a token.
    static func requiresMFA(_ json: String?) -> Bool {
        guard let json, let object = LocatedJSON.object(body: json.utf8) else { return false }
        for member in ["id_token", "access_token"] {
            guard let claims = object[member] else { continue }
            for name in ["amr", "acr", "acrs"] {
                guard let request = claims[name] else { continue }
                let values = (request["values"]?.strings ?? []) + [request["value"]?.string].compactMap { $0 }
                if values.contains(where: { $0.lowercased() == "mfa" || $0.lowercased() == "c1" }) { return true }
            }
        }
        return false
    }
}
