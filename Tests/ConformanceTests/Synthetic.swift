@testable import Journal
import LocatedJSON
import EntraHTTP
import Foundation
@testable import ExchangeKernel
@testable import IdentityPlatform
import Conformance

/// Synthetic journal entries and replies for judging cases without a server: each exchange goes
/// through `Exchange.init(JournalEntry)`, the judge's one reading of the journal, with the receipt's
/// answer facts its renderer would have written.
struct Synthetic {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)
    static let tenant = "/4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"

    var exchanges: [Exchange] = []
    var outcomes: [StepOutcome] = []
    /// The MCP server an MCP case's start named, and registrations another MCP case's app may have sent.
    var mcpServer: MCPServerSettings?
    var unattributable: [Exchange] = []

    /// `form`: the request's form, redacted as the journal keeps it (a refresh token becomes
    /// `[redacted N chars sha256:…]`); `answer`: the facts the answer's renderer wrote in the receipt.
    mutating func add(at seconds: Double, _ method: String, _ path: String, status: Int, kind: String,
                      query: [(String, String)] = [], form: [String: String] = [:], answer: Receipt.Answer = Receipt.Answer(),
                      errorCode: String? = nil) {
        let pairs = Redaction.redact(FormParameters(form.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        let body = pairs.isEmpty ? "null" : JournalEntry.groupedObject(pairs).compactText
        var entry = JournalEntry(id: exchanges.count + 1, time: Self.t0.addingTimeInterval(seconds), method: method, path: path, query: query, status: status,
                                 kind: kind, durationMilliseconds: 1, requestHeaders: [], responseHeaders: [], requestBody: body, responseBody: "null",
                                 requestForm: pairs)
        entry.receipt.answer = answer
        if let errorCode { entry.receipt.error = errorCode }
        exchanges.append(Exchange(entry))
    }

    /// A sign-in's start, with a state, nonce and challenge of its own unless `values` names them (the
    /// same values twice: a client that reuses them).
    mutating func authorize(at seconds: Double, challenge: Bool = true, status: Int = 200, errorCode: String? = nil,
                            values: (state: String, nonce: String, challenge: String)? = nil, extra: [(String, String)] = []) {
        let own = values ?? ("state-\(exchanges.count)", "nonce-\(exchanges.count)", "challenge-\(exchanges.count)")
        var query = [("client_id", "c"), ("response_type", "code"), ("state", own.state), ("nonce", own.nonce)] + extra
        if challenge { query += [("code_challenge", own.challenge), ("code_challenge_method", "S256")] }
        add(at: seconds, "GET", Self.tenant + "/oauth2/v2.0/authorize", status: status, kind: "authorize", query: query, errorCode: errorCode)
    }

    mutating func redeem(at seconds: Double, verifier: Bool = true, refreshToken: String = "rt1", extra: [String: String] = [:]) {
        var form = ["grant_type": "authorization_code", "code": "c0de"].merging(extra) { $1 }
        if verifier { form["code_verifier"] = "v3rifier" }
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/token", status: 200, kind: "token", form: form,
            answer: Receipt.Answer(scope: "User.Read", refreshToken: Receipt.handleID(refreshToken)))
    }

    mutating func refresh(at seconds: Double, presenting token: String = "rt1", status: Int = 200, issuing: String? = nil, error: String? = nil,
                          suberror: String? = nil, retryAfter: String? = nil, errorCode: String? = nil, claims: String? = nil) {
        var answer = Receipt.Answer(retryAfter: retryAfter)
        if status == 200 {
            answer.scope = "User.Read"
            answer.refreshToken = Receipt.handleID(issuing ?? token + "'")
        }
        if let error { answer = Receipt.Answer(error: error, suberror: suberror, retryAfter: retryAfter) }
        var form = ["grant_type": "refresh_token", "refresh_token": token]
        if let claims { form["claims"] = claims }
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/token", status: status, kind: "token", form: form, answer: answer, errorCode: errorCode)
    }

    mutating func graph(at seconds: Double, status: Int = 200, challenge: Bool = false) {
        add(at: seconds, "GET", "/v1.0/me", status: status, kind: "graph",
            answer: Receipt.Answer(wwwAuthenticate: challenge ? #"Bearer error="insufficient_claims", claims="e30=""# : nil))
    }

    mutating func reply(_ id: Int, _ step: JourneyStep.Kind, from: Double, to: Double, ok: Bool = true, error: AdapterError? = nil,
                        scopes: [String]? = nil, status: Int? = nil, observed: StepOutcome.Observed = .answered) {
        outcomes.append(StepOutcome(id: id, step: step, observed: observed, ok: ok, error: ok ? nil : (error ?? .other), status: status, scopes: scopes,
                                    startedAt: Self.t0.addingTimeInterval(from), endedAt: Self.t0.addingTimeInterval(to)))
    }

    func judge(_ id: String) -> CaseResult {
        Judge(exchanges: exchanges, outcomes: outcomes, mcpServer: mcpServer, unattributableRegistrations: unattributable).judge(Catalogue.named(id)!)
    }

    func check(_ caseID: String, _ name: String) -> CheckResult {
        judge(caseID).checks.first { $0.check == name }!
    }
}
