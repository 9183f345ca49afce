import Foundation
@testable import ExchangeKernel
@testable import IdentityPlatform
import Conformance

/// Synthetic journal entries and replies for judging cases without a server: each exchange goes
/// through `Exchange.init(JournalEntry)`, the judge's one reading of the journal.
struct Synthetic {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)
    static let tenant = "/4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"

    var exchanges: [Exchange] = []
    var outcomes: [StepOutcome] = []

    mutating func add(at seconds: Double, _ method: String, _ path: String, status: Int, kind: String,
                      query: [(String, String)] = [], form: [String: String] = [:], response: String = "null", headers: [(String, String)] = [],
                      errorCode: String? = nil) {
        let body = form.isEmpty ? "null" : "{" + form.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        var entry = JournalEntry(id: exchanges.count + 1, time: Self.t0.addingTimeInterval(seconds), method: method, path: path, query: query, status: status,
                                 kind: kind, durationMilliseconds: 1, requestHeaders: [], responseHeaders: headers, requestBody: body, responseBody: response)
        if let errorCode { entry.receipt.error = errorCode }
        exchanges.append(Exchange(entry))
    }

    mutating func authorize(at seconds: Double, challenge: Bool = true, status: Int = 200, errorCode: String? = nil) {
        var query = [("client_id", "c"), ("response_type", "code")]
        if challenge { query += [("code_challenge", "abc"), ("code_challenge_method", "S256")] }
        add(at: seconds, "GET", Self.tenant + "/oauth2/v2.0/authorize", status: status, kind: "authorize", query: query, errorCode: errorCode)
    }

    mutating func redeem(at seconds: Double, verifier: Bool = true, refreshToken: String = "rt1") {
        var form = ["grant_type": "authorization_code", "code": "[redacted]"]
        if verifier { form["code_verifier"] = "[redacted 43 chars sha256:1]" }
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/token", status: 200, kind: "token", form: form,
            response: #"{"scope":"User.Read","refresh_token":"\#(refreshToken)"}"#)
    }

    mutating func refresh(at seconds: Double, presenting token: String = "rt1", status: Int = 200, issuing: String? = nil, error: String? = nil,
                          suberror: String? = nil, retryAfter: String? = nil) {
        var response = "null"
        if status == 200 { response = #"{"scope":"User.Read","refresh_token":"\#(issuing ?? token + "'")"}"# }
        if let error { response = #"{"error":"\#(error)""# + (suberror.map { #","suberror":"\#($0)""# } ?? "") + "}" }
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/token", status: status, kind: "token",
            form: ["grant_type": "refresh_token", "refresh_token": token], response: response, headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
    }

    mutating func graph(at seconds: Double, status: Int = 200, challenge: Bool = false) {
        add(at: seconds, "GET", "/v1.0/me", status: status, kind: "graph",
            headers: challenge ? [("WWW-Authenticate", #"Bearer error="insufficient_claims", claims="e30=""#)] : [])
    }

    mutating func reply(_ id: Int, _ step: JourneyStep.Kind, from: Double, to: Double, ok: Bool = true, error: AdapterError? = nil,
                        scopes: [String]? = nil, status: Int? = nil, observed: StepOutcome.Observed = .answered) {
        outcomes.append(StepOutcome(id: id, step: step, observed: observed, ok: ok, error: ok ? nil : (error ?? .other), status: status, scopes: scopes,
                                    startedAt: Self.t0.addingTimeInterval(from), endedAt: Self.t0.addingTimeInterval(to)))
    }

    func judge(_ id: String) -> CaseResult {
        Judge(exchanges: exchanges, outcomes: outcomes).judge(Catalogue.named(id)!)
    }

    func check(_ caseID: String, _ name: String) -> CheckResult {
        judge(caseID).checks.first { $0.check == name }!
    }
}
