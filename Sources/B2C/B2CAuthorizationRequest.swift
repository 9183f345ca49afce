import FoundationGaps
import IdentityPlatform

/// A B2C /authorize request once validated. Derived again from the stored parameters on every page of
/// the flow, so that nothing a page posts can change what the client asked for.
struct B2CAuthorizationRequest: SignInRequest, Sendable {
    var client: ResolvedClient
    var redirectURI: String
    /// `code`, `id_token`, `token` or a combination (hybrid and implicit flows of web apps and old SPAs).
    var responseTypes: Set<String>
    var responseMode: ResponseMode
    var state: String?
    var scopes: B2CScopeRequest
    /// prompt (`none`, `login`, `consent` or `select_account`), login_hint, max_age, nonce and PKCE, read as
    /// Entra reads them.
    var signIn: SignInParameters

    var appName: String { client.application.displayName }

    /// Until the client and its redirect URI are trusted, problems are shown on a page; after, they go
    /// back to the redirect URI.
    enum Failure: Error, Sendable {
        case page(IdentityError)
        case reply(IdentityError, redirectURI: String, responseMode: ResponseMode, state: String?)
    }

    /// B2C's prompts, its `max_age` bound, and its AADB2C refusals; no challenge length check.
    static let dialect = SignInParameters.Dialect(
        prompts: [.silent, .login, .consent, .selectAccount], maxAgeLimit: Int(Int32.max),
        invalidPrompt: { _ in .b2cInvalidPrompt() }, invalidMaxAge: { .b2cInvalidMaxAge($0) },
        invalidChallengeMethod: { _ in .b2cUnsupportedChallengeMethod() }, invalidChallengeSize: nil,
        missingParameter: { .b2cMissingParameter($0) }
    )

    static func parse(_ p: [String: String], exchange: B2CExchange, directory: Directory) throws(Failure) -> B2CAuthorizationRequest {
        func value(_ name: String) -> String? { p[name].flatMap { $0.isEmpty ? nil : $0 } }
        let tenant = exchange.configuration.tenant
        guard let clientID = value("client_id") else { throw .page(.b2cMissingClientID()) }
        let client: ResolvedClient
        do throws(ClientRefusal) {
            client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.options, tenant: directory.tenant(id: tenant.id))
        } catch { throw .page(error.b2c(tenant: tenant.domain)) }
        guard let redirectURI = value("redirect_uri") ?? client.application.redirectURIs.first else {
            throw .page(.b2cMissingParameter("redirect_uri"))
        }
        do throws(IdentityError) { try ClientResolver.validateRedirectURI(redirectURI, for: client) } catch {
            throw .page(.b2cRedirectURINotRegistered(redirectURI, clientID: clientID))
        }

        let state = p["state"]
        let responseType = value("response_type") ?? ""
        let types = Set(responseType.split(separator: " ").map { $0.lowercased() })
        // Tokens on the redirect never go in the query: the fragment is the default then.
        let carriesTokens = !types.isDisjoint(with: ["id_token", "token"])
        let defaultMode: ResponseMode = carriesTokens ? .fragment : .query
        let modeText = value("response_mode")?.lowercased() ?? defaultMode.rawValue
        guard let mode = ResponseMode(rawValue: modeText), !(carriesTokens && mode == .query) else {
            throw .reply(.b2cUnsupportedResponseMode(modeText), redirectURI: redirectURI, responseMode: defaultMode, state: state)
        }
        func fail(_ error: IdentityError) -> Failure { .reply(error, redirectURI: redirectURI, responseMode: mode, state: state) }

        guard !types.isEmpty, types.isSubset(of: ["code", "id_token", "token"]) else {
            throw fail(responseType.isEmpty ? .b2cMissingParameter("response_type") : .b2cUnsupportedResponseType(responseType))
        }
        guard let scopeText = value("scope") else { throw fail(.b2cMissingScope()) }
        let scopes: B2CScopeRequest
        do throws(IdentityError) {
            scopes = try B2CScopeRequest.parse(scopeText, clientID: client.clientID, directory: directory, strict: exchange.options.strict)
        } catch { throw fail(error) }
        if types.contains("id_token"), !scopes.wantsIDToken { throw fail(.b2cIDTokenNeedsOpenID()) }
        if types.contains("token"), scopes.accessTokenAudience(clientID: client.clientID) == nil { throw fail(.b2cScopeNeedsResource(scopeText)) }

        let signIn: SignInParameters
        do throws(IdentityError) { signIn = try SignInParameters(p, dialect: dialect) } catch { throw fail(error) }

        return B2CAuthorizationRequest(
            client: client, redirectURI: redirectURI, responseTypes: types, responseMode: mode, state: state, scopes: scopes, signIn: signIn
        )
    }
}
