import ExchangeKernel
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// Self-service password reset through the native authentication API (`resetpassword/v1.0/…`): the
/// address proven with a mailed code, the new password submitted, the outcome polled, then a sign-in with
/// the last continuation token. The reset takes effect at `submit`, so the first poll already succeeds;
/// like a password change it ends the user's earlier refresh tokens (AADSTS50173 on their next use).
extension NativeAuthEndpoints {
    static func resetPasswordStart(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let username = try request.requiredShort("username")
        let challengeTypes = try request.challengeTypes()
        guard let user = request.user(named: username) else {
            throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain))
        }
        if let problem = NativeAuthError.accountProblem(user) { throw problem }
        guard !request.userFlow.signsInWithCode(user) else { throw NativeAuthError(.nativeCredentialRecoveryUnsupported()) }
        guard challengeTypes.contains("oob") else { return request.redirect("The client does not support the email one-time passcode password reset needs.") }
        var flow = NativeAuthFlow(id: NativeAuthFlows.newFlowID(), kind: .resetPassword, clientID: request.clientID, tenantID: request.tenant.id,
                                  username: username, userID: user.id, challengeTypes: challengeTypes, expiresAt: request.now)
        flow.capabilities = request.capabilities()
        return request.answer(["continuation_token": .string(request.flows.start(flow, now: request.now))])
    }

    static func resetPasswordContinue(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let grantType = try request.required("grant_type")
        guard grantType == "oob" else { throw NativeAuthError(.unsupportedGrantType(grantType)) }
        var flow = try request.flow(kind: .resetPassword, steps: [.codeSent])
        try request.checkCode(flow, presented: try request.required("oob"))
        flow.code = nil
        return request.answer([
            "expires_in": .int(Int(NativeAuthFlows.tokenLifetime)),
            "continuation_token": .string(try request.advance(flow, on: .addressProven)),
        ])
    }

    static func resetPasswordSubmit(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .resetPassword, steps: [.newPasswordRequired])
        let password = try request.required("new_password")
        guard let userID = flow.userID else { throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain)) }
        try PasswordPolicy.reset(userID: userID, to: password, in: request.service, tenant: request.tenant, now: request.now)
        return request.answer([
            "continuation_token": .string(try request.advance(flow, on: .newPasswordSubmitted)),
            "poll_interval": .int(2),
        ])
    }

    static func resetPasswordPollCompletion(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .resetPassword, steps: [.resetSubmitted])
        return request.answer([
            "status": .string("succeeded"),
            "continuation_token": .string(try request.advance(flow, on: .finished)),
        ])
    }
}
