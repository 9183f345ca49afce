import ExchangeKernel
import EntraHTTP
import Foundation
import LocatedJSON

/// Self-service password reset through the native authentication API (`resetpassword/v1.0/…`): the
/// address proven with a mailed code, the new password submitted, the outcome polled, then a sign-in with
/// the last continuation token. The reset takes effect at `submit`, so the first poll already succeeds;
/// like a password change it ends the user's earlier refresh tokens (AADSTS50173 on their next use).
extension NativeAuthEndpoints {
    static func resetPasswordStart(_ request: NativeAuthRequest) throws -> HTTPResponse {
        let username = try request.required("username")
        let challengeTypes = try request.challengeTypes()
        guard let user = request.user(named: username) else {
            throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain))
        }
        guard !user.password.isEmpty else {
            throw NativeAuthError(.nativeCredentialRecoveryUnsupported())
        }
        guard challengeTypes.contains("oob") else { return request.redirect() }
        let flow = NativeAuthFlow(id: NativeAuthFlows.newFlowID(), kind: .resetPassword, clientID: request.clientID, tenantID: request.tenant.id,
                                  username: username, userID: user.id, challengeTypes: challengeTypes, expiresAt: request.now)
        return request.answer(["continuation_token": .string(request.flows.issueToken(for: flow, step: .started, now: request.now))])
    }

    static func resetPasswordContinue(_ request: NativeAuthRequest) throws -> HTTPResponse {
        guard try request.required("grant_type") == "oob" else { throw NativeAuthError(.continuationTokenInvalid()) }
        var (flow, _) = try request.flow(kind: .resetPassword, steps: [.codeSent])
        try request.checkCode(flow, presented: try request.required("oob"))
        flow.code = nil
        return request.answer([
            "expires_in": .int(Int(NativeAuthFlows.tokenLifetime)),
            "continuation_token": .string(request.flows.issueToken(for: flow, step: .newPasswordRequired, now: request.now)),
        ])
    }

    static func resetPasswordSubmit(_ request: NativeAuthRequest) throws -> HTTPResponse {
        let (flow, _) = try request.flow(kind: .resetPassword, steps: [.newPasswordRequired])
        let password = try request.required("new_password")
        try PasswordPolicy.check(password)
        let now = request.now
        let outcome = request.service.directory.withLock { directory -> Bool? in
            guard let index = directory.users.firstIndex(where: { $0.id == flow.userID }) else { return nil }
            if directory.users[index].password == password { return false }
            directory.users[index].password = password
            directory.users[index].passwordExpired = false
            directory.users[index].tokensValidFrom = now
            return true
        }
        switch outcome {
        case nil: throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain))
        case false?: throw NativeAuthError(.passwordRefused("password_recently_used", "The new password was used recently."))
        case true?:
            return request.answer([
                "continuation_token": .string(request.flows.issueToken(for: flow, step: .resetSubmitted, now: now)),
                "poll_interval": .int(2),
            ])
        }
    }

    static func resetPasswordPollCompletion(_ request: NativeAuthRequest) throws -> HTTPResponse {
        let (flow, _) = try request.flow(kind: .resetPassword, steps: [.resetSubmitted])
        return request.answer([
            "status": .string("succeeded"),
            "continuation_token": .string(request.flows.issueToken(for: flow, step: .completed, now: request.now)),
        ])
    }
}
