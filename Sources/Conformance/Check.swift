import FoundationGaps

/// What a step's reply must say for a two-sided check: the client must not only stay silent on the
/// wire, it must also report the right outcome to its app.
package struct ReplyExpectation: Sendable, Equatable {
    /// nil: either.
    package var ok: Bool?
    /// When failing: one of these errors (empty: any error).
    package var errors: [AdapterError]
    /// When succeeding: the reported scopes must not contain these (declined scopes).
    package var scopesLack: [String]
    /// One of these statuses (a Graph call's final status); empty: any.
    package var statuses: [Int]
    /// No reply before the deadline is also right: an app waiting for a valid redirect (the forged one
    /// ignored, as MSAL's loopback listener does) is behaving correctly.
    package var waitingIsFine: Bool = false
    package var label: String

    package init(ok: Bool?, errors: [AdapterError] = [], scopesLack: [String] = [], statuses: [Int] = [], waitingIsFine: Bool = false, label: String) {
        self.waitingIsFine = waitingIsFine
        self.ok = ok
        self.errors = errors
        self.scopesLack = scopesLack
        self.statuses = statuses
        self.label = label
    }

    package static let succeeds = ReplyExpectation(ok: true, label: "succeeds")
    package static func fails(_ errors: AdapterError...) -> ReplyExpectation {
        ReplyExpectation(ok: false, errors: errors, label: errors.isEmpty ? "reports an error" : "reports " + errors.map(\.rawValue).joined(separator: " or "))
    }

    /// nil when `outcome` meets the expectation, else what is wrong.
    func problem(with outcome: StepOutcome) -> String? {
        if let ok, outcome.ok != ok {
            return ok ? "expected success, the app reported \(outcome.summary)" : "expected an error, the app reported success"
        }
        if !outcome.ok, !errors.isEmpty, !errors.contains(outcome.error ?? .other) {
            return "expected \(errors.map(\.rawValue).joined(separator: " or ")), the app reported \(outcome.error?.rawValue ?? "other")"
        }
        if outcome.ok {
            let reported = Set((outcome.scopes ?? []).map { Self.bare($0) })
            let claimed = scopesLack.filter { reported.contains(Self.bare($0)) }
            if !claimed.isEmpty { return "the app reported scopes it was not granted: \(claimed.joined(separator: " "))" }
        }
        if !statuses.isEmpty, let status = outcome.status, !statuses.contains(status) {
            return "expected status \(statuses.map(String.init).joined(separator: " or ")), the app saw \(status)"
        }
        return nil
    }

    /// `https://graph.microsoft.com/Calendars.Read` and `Calendars.Read` name the same permission.
    static func bare(_ scope: String) -> String {
        (scope.split(separator: "/").last.map(String.init) ?? scope).lowercased()
    }
}

/// One judgement of a case. Negative checks ("the client did not go on") decide only once the exchange
/// proving the client reached that point was seen; otherwise they are NOT_TESTABLE, never a silent pass.
package struct Check: Sendable {
    package enum Rule: Sendable {
        /// The step's reply meets the expectation.
        case reply(step: Int, ReplyExpectation)
        /// Every /authorize carries an S256 `code_challenge`; every code redemption a `code_verifier`.
        case pkceS256
        /// After `trigger`, no `forbidden` exchange. `reachedBy`: the step whose reply proves the app
        /// went on after the trigger (silence before it proves nothing).
        case noneAfter(trigger: ExchangeMatch, forbidden: ExchangeMatch, reachedBy: Int?)
        /// After `trigger`, an exchange matching `then` (the client recovered the right way).
        case follows(trigger: ExchangeMatch, then: ExchangeMatch)
        /// After `trigger`, the next `next` exchange comes `seconds` later at the earliest; no next one
        /// passes only once step `reachedBy` was answered after the trigger.
        case waits(trigger: ExchangeMatch, next: ExchangeMatch, seconds: Double, reachedBy: Int?)
        /// After `trigger`, at most `count` more `match` exchanges (no loop).
        case atMost(count: Int, match: ExchangeMatch, after: ExchangeMatch)
        /// While step `step` ran, no `match` exchange (cached token reuse).
        case noneDuring(step: Int, ExchangeMatch)
        /// While step `step` ran, at least one `match` exchange.
        case someDuring(step: Int, ExchangeMatch)
        /// From the start of step `step` on, at least one `match` exchange (a refresh in the background of
        /// a wait, of the step, or fired by it and arriving after it).
        case someFrom(step: Int, ExchangeMatch)
        /// Each refresh request presents the refresh token most recently issued (rotation).
        case presentsNewestRefreshToken
        /// A refresh token the service refused with invalid_grant is never presented again (no retry
        /// loop on a dead grant). Decides once step `reachedBy` was answered after the refusal.
        case neverRepresentsRefusedRefreshToken(reachedBy: Int)
        /// Device flow (RFC 8628 §3.5): after a poll answered `slow_down`, each later poll comes at least
        /// the device authorization's `interval` + 5 s after the one before. No later poll passes only
        /// once step `reachedBy` was answered after the slow_down.
        case backsOffAfterSlowDown(reachedBy: Int)
        /// Every `trigger` is followed by its next `next` no sooner than `seconds` (each retry backs off).
        case waitsAfterEach(trigger: ExchangeMatch, next: ExchangeMatch, seconds: Double, reachedBy: Int)
        /// At least one exchange matches (the client declares a capability), judged once an exchange
        /// matching `once` (where the declaration belongs) was seen.
        case seen(ExchangeMatch, once: ExchangeMatch)
        /// The Graph collection pages answered while step `step` ran (`listGraph`).
        case pages(step: Int, PagingJudgement)
        /// Step `step`'s reply names the account step `sameAs` signed in, not step `notAs`'s.
        case account(step: Int, sameAs: Int, notAs: Int)
        /// No refresh token issued before step `step` began is presented after it ended (a signed-out
        /// account's grant stays unused); decides once step `reachedBy` was answered after it.
        case noRefreshTokenFromBefore(step: Int, reachedBy: Int)
        /// Each /authorize that starts a sign-in has its own `state`, `nonce` and PKCE challenge (RFC 6749
        /// §10.12, OIDC Core §15.5.2, RFC 7636 §4.1): no value of one comes again in another. Decides once
        /// two sign-ins started.
        case freshPerSignIn
        /// No client secret, client assertion or password travels in a request the browser carries (the
        /// /authorize and logout URLs and posts): browser history, logs and referrers would keep it.
        case noSecretInBrowserRequests
        /// RFC 8707 as MCP clients must use it: every request of `kind` names the case's MCP server as
        /// `resource`, and a sign-in's start asks the server's scopes in full. Decides once one was seen.
        case namesResource(ResourceRequest)
        /// No dynamic registration (RFC 7591) reached the authorization server: decides once step `step` was
        /// answered; a registration that another MCP case's app may have sent makes it NOT_TESTABLE.
        case noDynamicRegistration(step: Int)
    }

    /// The requests that carry an RFC 8707 `resource`.
    package enum ResourceRequest: String, Sendable {
        /// The /authorize that starts a sign-in.
        case authorization
        /// A code redemption or a refresh at the token endpoint.
        case token
    }

    /// What a paged collection's reading is judged on.
    package enum PagingJudgement: Sendable {
        /// Every `@odata.nextLink` answered was requested, so the last page was reached.
        case followsEveryLink
        /// Each page requested once, and nothing after the page without a link.
        case stopsAtLastPage
        /// The reply's `count` is the number of items the pages held.
        case reportsEveryItem
    }

    package var name: String
    /// nil: the case's level. A recommended check in a required case reports WARNING when it fails.
    package var level: CaseLevel?
    package var rule: Rule
    package var citation: Citation

    package init(_ name: String, level: CaseLevel? = nil, _ rule: Rule, citation: Citation) {
        self.name = name
        self.level = level
        self.rule = rule
        self.citation = citation
    }
}
