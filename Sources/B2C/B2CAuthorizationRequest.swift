import Foundation
import IdentityPlatform

/// A B2C /authorize request once validated. Derived again from the stored parameters on every page of
/// the flow, so that nothing a page posts can change what the client asked for.
struct B2CAuthorizationRequest: Sendable {
    var client: ResolvedClient
    var redirectURI: String
    /// `code`, `id_token`, `token` or a combination (hybrid and implicit flows of web apps and old SPAs).
    var responseTypes: Set<String>
    var responseMode: ResponseMode
    var state: String?
    var scopes: B2CScopeRequest
    /// `none`, `login`, `consent` or `select_account`.
    var prompt: Prompt?
    var loginHint: String?
    /// How old the last sign-in may be for the session to count, judged as Entra's flows judge it.
    var maxAge: MaxAge?
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?

    var appName: String { client.application.displayName }

    /// Until the client and its redirect URI are trusted, problems are shown on a page; after, they go
    /// back to the redirect URI.
    enum Failure: Error, Sendable {
        case page(IdentityError)
        case reply(IdentityError, redirectURI: String, responseMode: ResponseMode, state: String?)
    }

    static let prompts: Set<Prompt> = [.silent, .login, .consent, .selectAccount]

    static func parse(_ p: [String: String], exchange: B2CExchange, directory: Directory) throws(Failure) -> B2CAuthorizationRequest {
        func value(_ name: String) -> String? { p[name].flatMap { $0.isEmpty ? nil : $0 } }
        let tenant = exchange.configuration.tenant
        guard let clientID = value("client_id") else { throw .page(.b2cMissingClientID()) }
        let client: ResolvedClient
        do throws(IdentityError) {
            client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.options, tenant: directory.tenant(id: tenant.id))
        } catch { throw .page(.b2cTranslated(error, tenant: tenant.domain)) }
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

        var prompt: Prompt?
        if let text = value("prompt") {
            guard let parsed = Prompt(rawValue: text.lowercased()), prompts.contains(parsed) else { throw fail(.b2cInvalidPrompt()) }
            prompt = parsed
        }

        var maxAge: MaxAge?
        if let text = value("max_age") {
            guard let parsed = MaxAge(parameter: text, limit: Int(Int32.max)) else { throw fail(.b2cInvalidMaxAge(text)) }
            maxAge = parsed
        }

        var method = value("code_challenge_method")
        let challenge = value("code_challenge")
        if challenge != nil {
            let m = method ?? "plain"
            guard m == "S256" || m == "plain" else { throw fail(.b2cUnsupportedChallengeMethod()) }
            method = m
        } else if method != nil {
            throw fail(.b2cMissingParameter("code_challenge"))
        }

        return B2CAuthorizationRequest(
            client: client, redirectURI: redirectURI, responseTypes: types, responseMode: mode, state: state, scopes: scopes, prompt: prompt,
            loginHint: value("login_hint"), maxAge: maxAge, nonce: p["nonce"], codeChallenge: challenge, codeChallengeMethod: method
        )
    }
}
