import ExchangeKernel
import EntraHTTP
import FoundationGaps
import Synchronization

/// `grant_type=urn:ietf:params:oauth:grant-type:device_code`: the polling side of the device flow.
/// The /devicelogin page (browser endpoints) approves or declines the record.
enum DeviceCodeGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        // v2 clients send `device_code`; ADAL (v1) sends `code`, and the v1 endpoint names `code` when it
        // is missing (AADSTS900144, recorded 2020).
        guard let deviceCode = request.optional("device_code") ?? request.optional("code") else {
            throw .missingParameter(request.version == .v1 ? "code" : "device_code")
        }
        let client = try request.authenticateClient()
        let now = request.now
        let outcome: Result<(DeviceCodeRecord, GrantContext), IdentityError> = request.service.state.withLock { state in
            if state.deviceCodes[deviceCode] == nil, state.deviceCodes.wasEvicted(handle: deviceCode) { return .failure(.deviceCodeExpired()) }
            guard var record = state.deviceCodes[deviceCode],
                  record.clientID.caseInsensitiveCompare(client.application.clientID) == .orderedSame else {
                return .failure(.badVerificationCode())
            }
            defer { state.deviceCodes[deviceCode] = record }
            if record.expiresAt <= now { return .failure(.deviceCodeExpired()) }
            let tooSoon = record.lastPolledAt.map { now.timeIntervalSince($0) < TimeInterval(record.interval) } ?? false
            record.lastPolledAt = now
            switch record.status {
            case .redeemed: return .failure(.invalidGrant())
            case .declined: return .failure(.deviceAuthorizationDeclined())
            case .pending: return .failure(tooSoon ? .slowDown() : .authorizationPending())
            case .approved(let approval):
                record.status = .redeemed
                return .success((record, approval))
            }
        }
        let (record, approval) = try outcome.get()
        request.exchange.receipt.grant(.deviceCode, .redeemed, handle: deviceCode)
        guard let user = request.directory.user(id: approval.userID) else { throw .invalidGrant() }
        try GrantRedemption.checkAccountUsable(user)
        let tenant = try request.tenant(of: user, client: client.application)
        let scopes = try request.scopeRequest(granted: approval.scopes.isEmpty ? record.requestedScopes : approval.scopes)
        // The person consented on the /devicelogin pages when approving.
        let permissions = request.directory.delegatedPermissions(for: scopes, client: client.application, userID: user.id, tenantID: user.tenantID)
        var grant = approval
        grant.scopes = scopes.scopes
        grant.resourceAppID = scopes.resource?.appID
        return try request.issue(client: client, tenant: tenant, user: user, scopes: scopes, permissions: permissions, grant: grant)
    }
}
