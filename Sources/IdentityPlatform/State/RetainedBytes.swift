/// What each kept record weighs, for its store's byte budget (`StateLimits`): every text it holds, in
/// UTF-8, plus `recordOverhead`. An estimate of the heap it takes, within a small factor, and the same
/// whatever the platform, so the budgets hold on Linux and macOS alike.
extension String {
    var retained: Int { utf8.count }
}

extension Optional where Wrapped == String {
    var retained: Int { self?.utf8.count ?? 0 }
}

extension Array where Element == String {
    var retained: Int { reduce(0) { $0 + $1.utf8.count + 16 } }
}

extension Dictionary where Key == String, Value == String {
    var retained: Int { reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 32 } }
}

extension GrantContext {
    var retainedBytes: Int {
        clientID.retained + userID.retained + tenantID.retained + scopes.retained + resourceAppID.retained + sessionID.retained
            + authenticationMethods.retained + claimsRequest.retained + clientCapabilities.retained + policy.retained + declinedPermissions.retained
            + sourceSubject.retained
    }
}

extension AuthorizationCodeRecord {
    package var retainedBytes: Int {
        Self.recordOverhead + code.retained + grant.retainedBytes + redirectURI.retained + codeChallenge.retained
            + codeChallengeMethod.retained + nonce.retained
    }
}

extension RefreshTokenRecord {
    package var retainedBytes: Int { Self.recordOverhead + grant.retainedBytes + familyID.retained }
}

extension BrowserSession {
    package var retainedBytes: Int {
        Self.recordOverhead + id.retained + policy.retained
            + accounts.reduce(0) { $0 + 32 + $1.userID.retained + $1.authenticationMethods.retained }
    }
}

extension DeviceCodeRecord {
    package var retainedBytes: Int {
        let approved: Int = if case .approved(let grant) = status { grant.retainedBytes } else { 0 }
        return Self.recordOverhead + deviceCode.retained + userCode.retained + clientID.retained + tenantSegment.retained
            + requestedScopes.retained + approved
    }
}

extension UserCodeRecord {
    package var retainedBytes: Int { Self.recordOverhead + deviceCode.retained }
}

extension PendingAuthorization {
    package var retainedBytes: Int {
        let signUpBytes = signUp.map { $0.email.retained + $0.attributes.retained + $0.password.retained + $0.code.retained } ?? 0
        let emailCodeBytes = emailCode.map { $0.userID.retained + $0.email.retained + $0.code.retained } ?? 0
        return Self.recordOverhead + id.retained + parameters.retained + tenantSegment.retained + policy.retained + userID.retained
            + authenticationMethods.retained + sessionID.retained + sessionCookie.retained + declinedPermissions.retained + step.retained
            + signUpBytes + emailCodeBytes
    }
}
