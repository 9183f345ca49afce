package import FoundationGaps
import Synchronization

/// A presented refresh token, as the state knows it.
package enum RefreshTokenLookup: Sendable {
    case live(RefreshTokenRecord)
    /// Dropped because the store was full: reported to the client as the expiry it was closest to.
    case evicted
    /// Never issued here, or forgotten after its expiry.
    case unknown

    package var record: RefreshTokenRecord? {
        if case .live(let record) = self { return record }
        return nil
    }
}

/// Why a presented authorization code cannot be redeemed, as its store finds it: each token endpoint words
/// it in its own catalogue.
package enum CodeRefusal: Error, Sendable {
    /// Not of the form the service issues (a code percent-encoded twice, base64 with `+`, `/` and `=`).
    case malformed
    /// Never issued here, or forgotten after its expiry.
    case unknown
    /// Past its lifetime; without its record when it was dropped because the store was full.
    case expired(AuthorizationCodeRecord?)
    case alreadyRedeemed

    /// Whether a code could be one the service issued: base64url and dots only.
    static func couldBeIssued(_ code: String) -> Bool {
        code.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }
}

/// What the state says about the handles and the sign-in flow a request presents (the scenario engine's
/// facts: whose grant it is, what an /authorize being continued asked for).
package struct GrantFacts: Sendable {
    /// The original /authorize parameters of the flow a page continues.
    package var flowParameters: [String: String]?
    /// The user already signed in on that flow.
    package var flowUserID: String?
    /// The users whose refresh tokens, codes or approved device codes were presented.
    package var owners: [String] = []
    /// The device flows a typed user code names.
    package var deviceFlows: [(clientID: String, scopes: [String])] = []

    package init() {}
}

/// The identity service's state, reached by intent: other modules (B2C, the scenario engine, the state
/// store) redeem, end, look up and reset through these, never through the stores themselves.
extension IdentityService {
    // MARK: Refresh tokens and codes

    package func lookUpRefreshToken(_ token: String) -> RefreshTokenLookup {
        state.withLock { state in
            if let record = state.refreshTokens[token] { return .live(record) }
            return state.refreshTokens.wasEvicted(handle: token) ? .evicted : .unknown
        }
    }

    /// Starts the token's inactivity window again (a redemption).
    func markRefreshTokenUsed(_ token: String, at now: Date) {
        state.withLock { $0.refreshTokens[token]?.lastUsedAt = now }
    }

    package func storeRefreshToken(_ token: String, record: RefreshTokenRecord, now: Date) {
        state.withLock { state in
            state.purge(now: now)
            state.refreshTokens[token] = record
        }
    }

    /// Keeps a new authorization code for the token endpoint, single use, for the configured code lifetime.
    /// `endingFlow`: the pending sign-in it ends, forgotten under the same lock so no page post reuses it.
    package func issueCode(_ code: String, grant: GrantContext, redirectURI: String, codeChallenge: String? = nil, codeChallengeMethod: String? = nil,
                           nonce: String? = nil, now: Date, endingFlow flowID: String? = nil) {
        let record = AuthorizationCodeRecord(code: code, grant: grant, redirectURI: redirectURI, codeChallenge: codeChallenge,
                                             codeChallengeMethod: codeChallengeMethod, nonce: nonce,
                                             issuedAt: now, expiresAt: now.addingTimeInterval(options.authorizationCodeLifetime))
        state.withLock { state in
            if let flowID { state.pendingAuthorizations.removeValue(forKey: flowID) }
            state.authorizationCodes[code] = record
        }
    }

    /// The record of a code that may still be redeemed. Nothing is spent: `redeemCode` does that once
    /// every other check passed.
    package func redeemableCode(_ code: String, now: Date) throws(CodeRefusal) -> AuthorizationCodeRecord {
        guard CodeRefusal.couldBeIssued(code) else { throw .malformed }
        let (record, evicted) = state.withLock { ($0.authorizationCodes[code], $0.authorizationCodes.wasEvicted(handle: code)) }
        // A code dropped because the store was full is reported as the expiry it was closest to.
        guard let record else { throw evicted ? .expired(nil) : .unknown }
        if record.redeemedAt != nil { throw .alreadyRedeemed }
        if record.expiresAt <= now { throw .expired(record) }
        return record
    }

    /// Marks a code redeemed, failing when a concurrent request redeemed it first.
    package func redeemCode(_ code: String, now: Date) throws(CodeRefusal) {
        let won = state.withLock { state -> Bool in
            guard state.authorizationCodes[code]?.redeemedAt == nil else { return false }
            state.authorizationCodes[code]?.redeemedAt = now
            return true
        }
        if !won { throw .alreadyRedeemed }
    }

    // MARK: Sessions

    package func endSession(id: String) {
        state.withLock { _ = $0.sessions.removeValue(forKey: id) }
    }

    // MARK: What a request presents

    /// True when one of `handles` is a live refresh token, code, device or user code, or sign-in flow here.
    package func issuedAny(of handles: [String]) -> Bool {
        state.withLock { st in
            handles.contains {
                st.refreshTokens[$0] != nil || st.authorizationCodes[$0] != nil || st.deviceCodes[$0] != nil
                    || st.userCodes[$0] != nil || st.userCodes[$0.uppercased()] != nil || st.pendingAuthorizations[$0] != nil
            }
        }
    }

    /// Read under one lock: a copy of the state taken out of it would make the next write copy every
    /// store (copy-on-write), a cost that grows with the number of live refresh tokens.
    package func grantFacts(flow flowID: String?, handles: [String]) -> GrantFacts {
        state.withLock { state in
            var facts = GrantFacts()
            if let flowID, let pending = state.pendingAuthorizations[flowID] {
                facts.flowParameters = pending.parameters
                facts.flowUserID = pending.userID
            }
            for handle in handles {
                if let record = state.refreshTokens[handle] { facts.owners.append(record.grant.userID) }
                if let record = state.authorizationCodes[handle] { facts.owners.append(record.grant.userID) }
                if let record = state.deviceCodes[handle], case .approved(let grant) = record.status { facts.owners.append(grant.userID) }
                if let entry = state.userCodes[handle] ?? state.userCodes[handle.uppercased()], let record = state.deviceCodes[entry.deviceCode] {
                    facts.deviceFlows.append((record.clientID, record.requestedScopes))
                }
            }
            return facts
        }
    }

    /// The ids of the sign-in flows still pending.
    package var pendingSignInIDs: Set<String> {
        state.withLock { Set($0.pendingAuthorizations.keys) }
    }

    /// How many refresh tokens are live (what `--state` and the benchmarks count).
    package var liveRefreshTokenCount: Int {
        state.withLock { $0.refreshTokens.count }
    }

    /// Sends every later change of the state's handles to `report` (key, present).
    package func reportHandles(to report: @escaping @Sendable (String, Bool) -> Void) {
        state.withLock { $0.reportHandles(to: report) }
    }

    /// Adds `count` live refresh tokens shaped like a live one (fresh scope strings, as a grant builds
    /// them) under random keys no client can present: how `StateBench` measures a full store. False
    /// when there is no live token to copy.
    package func seedRefreshTokens(count: Int) -> Bool {
        state.withLock { state in
            guard let template = state.refreshTokens.values.first else { return false }
            var generator = SystemRandomNumberGenerator()
            for index in 0..<count {
                var record = template
                record.grant.scopes = template.grant.scopes.map { "\($0)" }
                record.issuedAt = template.issuedAt.addingTimeInterval(Double(index) / 1000)
                record.expiresAt = template.expiresAt.addingTimeInterval(Double(index) / 1000)
                state.refreshTokens[HandleDigest(high: generator.next(), low: UInt64(index))] = record
            }
            return true
        }
    }

    /// Connects `--state`'s store and restores its rows; what could not be read is returned.
    package func attach(_ persistence: any StatePersistence, restoring records: [PersistedRecord]) -> [PersistedRecord] {
        state.withLock { $0.attach(persistence, restoring: records) }
    }

    // MARK: Lifecycle

    /// Forgets every code, refresh token, session and pending sign-in (a reset to the start state).
    package func forgetGrantsAndSessions() {
        state.withLock { $0 = $0.emptied() }
    }

    /// False when the state is kept on disk (`--state`): writes then wait for SQLite.
    package var keepsStateInMemory: Bool {
        state.withLock { $0.persistence == nil }
    }
}
