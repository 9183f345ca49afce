import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import Synchronization
@testable import IdentityPlatform

/// Expiry by a time-ordered index: expired records leave without any request scanning the stores, browser
/// sessions expire, and a full store answers as documented in docs/state.md.
@Suite("State: incremental expiry and bounded stores")
struct StateExpiryTests {
    typealias F = TokenFixtures

    struct Note: Expiring {
        var forgetAt: Date
        var retainedBytes = 1
    }

    /// A store never holds more than its byte budget: a heavier record evicts those due soonest until it
    /// fits, a record that grows pushes others out but never itself, and removals give the bytes back.
    @Test func aStoreKeepsItsByteBudget() {
        var store = ExpiringStore<Int, Note>(capacity: 1_000, byteBudget: 1_000)
        for key in 0..<10 { store[key] = Note(forgetAt: F.start.addingTimeInterval(Double(key)), retainedBytes: 100) }
        #expect(store.count == 10 && store.retainedBytes == 1_000)
        store[10] = Note(forgetAt: F.start.addingTimeInterval(100), retainedBytes: 250)
        #expect(store.retainedBytes <= 1_000 && store[0] == nil && store[1] == nil && store[2] == nil && store[3] != nil)
        #expect(store.wasEvicted(0), "an evicted record answers as expired, as a full store's")
        store[9] = Note(forgetAt: F.start.addingTimeInterval(9), retainedBytes: 600)
        #expect(store.retainedBytes <= 1_000 && store[9] != nil, "the record that grew stays")
        store[9] = nil
        store[10] = nil
        #expect(store.retainedBytes == store.values.reduce(0) { $0 + $1.retainedBytes })
        store[11] = Note(forgetAt: F.start, retainedBytes: 5_000)
        #expect(store.count == 1 && store[11] != nil, "a record heavier than the budget is kept alone")
    }

    /// Each store's budget holds against what a request can choose: a pending sign-in's 8 KiB of parameters,
    /// a code's nonce and claims request.
    @Test func theStatesStoresAreBoundedInBytes() {
        var limits = StateLimits()
        limits.pendingAuthorizationBytes = 200_000
        limits.authorizationCodeBytes = 300_000
        var state = PlatformState(limits: limits)
        let heavy = String(repeating: "p", count: PendingAuthorization.largestParameters - 16)
        for index in 0..<200 {
            state.pendingAuthorizations["flow-\(index)"] = PendingAuthorization(id: "flow-\(index)", parameters: ["state": heavy], tenantSegment: "common",
                                                                                endpointVersion: .v2, expiresAt: F.start.addingTimeInterval(Double(index)))
            var grant = GrantContext(clientID: "c", userID: "u", tenantID: "t", scopes: ["openid"], resourceAppID: nil, endpointVersion: .v2, authTime: F.start)
            grant.claimsRequest = heavy
            state.authorizationCodes["code-\(index)"] = AuthorizationCodeRecord(code: "code-\(index)", grant: grant, redirectURI: "http://localhost", codeChallenge: nil,
                                                                               codeChallengeMethod: nil, nonce: heavy, issuedAt: F.start, expiresAt: F.start.addingTimeInterval(Double(600 + index)))
        }
        #expect(state.pendingAuthorizations.retainedBytes <= 200_000 && state.pendingAuthorizations.count < 200)
        #expect(state.authorizationCodes.retainedBytes <= 300_000 && state.authorizationCodes.count < 200)
        #expect(state.pendingAuthorizations["flow-199"] != nil && state.authorizationCodes["code-199"] != nil, "the newest are kept")
    }

    @Test func expiredEntriesLeaveWithoutScanningTheLiveOnes() {
        var store = ExpiringStore<Int, Note>(capacity: 1_000_000)
        let start = F.start
        for key in 0..<50_000 { store[key] = Note(forgetAt: start.addingTimeInterval(86400 + Double(key))) }
        for key in 50_000..<50_100 { store[key] = Note(forgetAt: start.addingTimeInterval(60)) }
        #expect(store.count == 50_100)

        let now = start.addingTimeInterval(120)
        var calls = 0
        while store.purge(now: now, limit: 8) > 0 { calls += 1 }
        #expect(store.count == 50_000, "exactly the hundred expired entries left")
        #expect(store[50_000] == nil && store[0] != nil)
        // 100 removals and the final look at a live entry's due time; a scan would have touched 50,100.
        #expect(store.purgeWork <= 101, "purge work was \(store.purgeWork)")
        #expect(calls == 13)
    }

    @Test func changingAnEntrysExpiryKeepsTheIndexCorrect() {
        var store = ExpiringStore<String, Note>(capacity: 10)
        store["a"] = Note(forgetAt: F.start.addingTimeInterval(10))
        store["a"] = Note(forgetAt: F.start.addingTimeInterval(1000))
        store["b"] = Note(forgetAt: F.start.addingTimeInterval(20))
        store.purge(now: F.start.addingTimeInterval(500))
        #expect(store.keys == ["a"], "the stale due time of `a` was skipped, `b` expired")
        for round in 0..<1000 { store["a"] = Note(forgetAt: F.start.addingTimeInterval(2000 + Double(round))) }
        store.purge(now: F.start.addingTimeInterval(2998))
        #expect(store.count == 1)
        store.purge(now: F.start.addingTimeInterval(3000))
        #expect(store.isEmpty)
    }

    @Test func issuingTokensPurgesExpiredCodesIncrementally() throws {
        let (service, clock) = F.service()
        F.issueCode(service, code: "code-signin")
        let body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "code-signin")), to: service))
        let token = try #require(body["refresh_token"] as? String)
        for index in 0..<200 { F.issueCode(service, code: "code-\(index)") }
        clock.advance(by: 600 + 3600 + 1)
        let workBefore = service.state.withLock { $0.purgeWork }
        var requests = 0
        while service.state.withLock({ $0.authorizationCodes.count }) > 0 {
            let refresh = [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token), ("scope", "openid offline_access https://graph.microsoft.com/User.Read")]
            #expect(F.send(F.post(F.tokenPath, refresh), to: service).status.code == 200)
            requests += 1
            try #require(requests < 100)
        }
        #expect(requests == 26, "eight expired codes leave per token issued")
        let work = service.state.withLock { $0.purgeWork } - workBefore
        #expect(work <= 201 + requests * 6, "each request looked at a bounded number of entries (\(work) for \(requests))")
    }

    @Test func browserSessionsExpire() {
        let browser = ScriptedBrowser()
        let done = browser.signInAndConsent(BrowserFixtures.authorize(), login: BrowserFixtures.adele)
        #expect(RedirectResult(done)?["code"] != nil)
        #expect(browser.service.state.withLock { $0.sessions.count } == 1)

        browser.clock.advance(by: StateLimits.standard.sessionLifetime + 1)
        #expect(browser.get(BrowserFixtures.authorize()).has("signin"), "an expired session no longer signs in")
        #expect(browser.service.state.withLock { $0.sessions.count } == 0, "and it is gone from the store")
    }

    @Test func aFullRefreshTokenStoreEvictsTheSoonestDueAndItsUseSaysExpired() throws {
        var limits = StateLimits()
        limits.refreshTokens = 3
        let (service, clock) = F.service(limits: limits)
        var tokens: [String] = []
        for index in 0..<4 {
            F.issueCode(service, code: "code-\(index)")
            let body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "code-\(index)")), to: service))
            tokens.append(try #require(body["refresh_token"] as? String))
            clock.advance(by: 1)
        }
        #expect(service.state.withLock { ($0.refreshTokens.count, $0.refreshTokens.evictions) } == (3, 1))

        let refreshForm = { (token: String) in [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token), ("scope", "openid offline_access https://graph.microsoft.com/User.Read")] }
        let evicted = F.send(F.post(F.tokenPath, refreshForm(tokens[0])), to: service)
        #expect(evicted.status.code == 400)
        #expect(F.json(evicted)["error"] as? String == "invalid_grant")
        #expect(F.errorCode(evicted) == 70008)
        #expect((F.json(evicted)["error_description"] as? String)?.hasPrefix("AADSTS70008: The provided authorization code or refresh token has expired") == true)
        #expect(F.send(F.post(F.tokenPath, refreshForm(tokens[3])), to: service).status.code == 200)
        let unknown = F.send(F.post(F.tokenPath, refreshForm("1.A-never-issued")), to: service)
        #expect(F.errorCode(unknown) == 70000, "a token never issued is still malformed, not expired")
    }

    @Test func refreshTokensAreKeptByAFixedSizeDigest() throws {
        let (service, _) = F.service()
        F.issueCode(service, code: "code-digest")
        let body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "code-digest")), to: service))
        let token = try #require(body["refresh_token"] as? String)
        let keys = service.state.withLock { $0.refreshTokens.keys }
        #expect(keys == [HandleDigest(token)])
        #expect(MemoryLayout<HandleDigest>.size == 16)
    }
}
