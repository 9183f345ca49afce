import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// The token endpoint's grants of the native authentication API: a flow's continuation token with the
/// password (`grant_type=password`), the code mailed (`oob`), the second factor's code (`mfa_oob`, or `oob`
/// as the reference writes it), or alone once a sign-up, a password reset or a registration finished
/// (`continuation_token`). Only an external tenant accepts them; the flow ends with the tokens.
enum NativeAuthGrants {
    static func redeem(_ request: TokenRequest, grantType: String) throws(IdentityError) -> HTTPResponse {
        guard case .specific(let tenant) = request.selector, tenant.servesNativeAuthentication else { throw .unsupportedGrantType(grantType) }
        let token = try request.required("continuation_token")
        let client = try request.authenticateClient()
        let flows = request.service.nativeAuthFlows
        let flow: NativeAuthFlow
        do {
            flow = try flows.flow(presented: token, by: .v1(tenantID: tenant.id, clientID: client.application.clientID), now: request.now)
        } catch { throw .continuationToken(error) }
        let methods: [String]
        // The account as the password check left it (migrated, or its password now expired).
        var checked: DirectoryUser?
        switch (grantType, flow.kind, flow.step) {
        case ("password", .signIn, .passwordRequired):
            guard let user = request.directory.user(id: flow.userID ?? "") else { throw .invalidCredentials() }
            checked = try PasswordSubmit(request.exchange).check(try request.required("password"), of: user, signInName: flow.username, client: client.application).signedIn()
            methods = ["pwd"]
        case ("oob", .signIn, .codeSent):
            try checkCode(flow, request: request)
            methods = ["otp"]
        case ("mfa_oob", .signIn, .mfaCodeSent), ("oob", .signIn, .mfaCodeSent):
            try checkCode(flow, request: request)
            methods = [flow.firstFactor ?? "pwd", "mfa"]
        case ("continuation_token", .signIn, .completed):
            methods = [flow.firstFactor ?? "pwd", "mfa"]
        case ("continuation_token", .signUp, .completed):
            methods = [flow.password == nil ? "otp" : "pwd"]
        case ("continuation_token", .resetPassword, .completed):
            methods = ["pwd"]
        case ("password", _, _), ("oob", _, _), ("mfa_oob", _, _), ("continuation_token", _, _):
            throw .continuationTokenInvalid()
        default:
            throw .unsupportedGrantType(grantType)
        }
        guard let user = checked ?? request.directory.user(id: flow.userID ?? "") else { throw .invalidGrant() }
        if methods.count == 1, NativeAuthStrongAuth.needsSecondFactor(user, directives: request.directives) {
            try GrantRedemption.checkAccountUsable(user)
            return NativeAuthStrongAuth.demand(flow, user: user, firstFactor: methods[0], flows: flows, now: request.now, trace: request.exchange.trace)
        }
        try GrantRedemption.checkAccountUsable(user)
        let scopes = try request.scopeRequest()
        // An app's own customers: its configured permissions are consented for them, as no page can ask.
        let permissions = try request.delegatedPermissions(scopes, client: client.application, user: user,
                                                           allowed: request.configuredPermissions(scopes, client: client.application))
        // Two requests racing with one token: only the one that ends the flow gets tokens.
        guard flows.finish(flow.id) else { throw .continuationTokenInvalid() }
        let grant = GrantContext(
            clientID: client.application.clientID, userID: user.id, tenantID: tenant.id, scopes: scopes.scopes,
            resourceAppID: scopes.resource?.appID, endpointVersion: .v2, authTime: request.now, authenticationMethods: methods
        )
        return try request.issue(client: client, tenant: tenant, user: user, scopes: scopes, permissions: permissions, grant: grant,
                                 clientInfoValues: ["1", "true"])
    }

    /// The code mailed last for this flow, unexpired; a wrong one leaves the flow where it is.
    static func checkCode(_ flow: NativeAuthFlow, request: TokenRequest) throws(IdentityError) {
        guard Outbox.accepts(try request.required("oob"), code: flow.code, expiresAt: flow.codeExpiresAt, now: request.now) else { throw .invalidOneTimeCode() }
    }
}
