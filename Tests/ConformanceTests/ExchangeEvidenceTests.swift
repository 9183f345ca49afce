@testable import Journal
@testable import ExchangeKernel
import Conformance
import Foundation
@testable import IdentityPlatform
import Testing

/// The judge's evidence: the recorded request's query and form, and the answer's facts as their renderer
/// wrote them in the receipt. No body is read back.
@Suite struct ExchangeEvidenceTests {
    @Test func theEvidenceReadsNoBody() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/Conformance/Exchange.swift").standardized
        let text = try String(contentsOf: source, encoding: .utf8)
        for word in ["JSONSerialization", "String: Any", "requestBody", "responseBody", "responseHeaders", "LocatedJSON", "URLComponents"] {
            #expect(!text.contains(word), "Exchange.swift uses \(word)")
        }
    }

    /// The bodies below say other things than the receipt and the form: only the latter count.
    @Test func parametersAreTheQueryAndTheFormAndFactsTheReceipts() {
        var entry = JournalEntry(id: 1, time: Synthetic.t0, method: "POST", path: Synthetic.tenant + "/oauth2/v2.0/token",
                                 query: [("p", "B2C_1_susi"), ("grant_type", "from_the_query")], status: 400, kind: "token", durationMilliseconds: 1,
                                 requestHeaders: [], responseHeaders: [("Retry-After", "99")], requestBody: #"{"grant_type":"from_the_body"}"#,
                                 responseBody: #"{"error":"from_the_body"}"#, requestForm: [("grant_type", "refresh_token")])
        entry.receipt.answer = Receipt.Answer(error: "invalid_grant", suberror: "bad_token")
        entry.receipt.error = "AADSTS70000"
        let exchange = Exchange(entry)
        #expect(exchange.parameters == ["p": "B2C_1_susi", "grant_type": "refresh_token"], "the form speaks over the query")
        #expect(exchange.fact(.error) == "invalid_grant" && exchange.fact(.suberror) == "bad_token" && exchange.fact(.errorCode) == "AADSTS70000")
        #expect(exchange.fact(.retryAfter) == nil, "a header fact is the receipt's too")
        #expect(exchange.summary == "POST …/oauth2/v2.0/token grant_type=refresh_token → 400 invalid_grant/bad_token [AADSTS70000]")
    }

    /// A redirect's error parameters speak for the answer, each on its own.
    @Test func aRedirectsErrorSpeaksOverTheBodys() {
        let answer = Receipt.Answer(error: "body_error", suberror: "body_suberror", redirectError: Receipt.RedirectError(error: "access_denied", subcode: "cancel"))
        let exchange = Exchange(id: 1, time: Synthetic.t0, method: "GET", path: "/authorize", kind: "authorize", status: 302, answer: answer)
        #expect(exchange.fact(.error) == "access_denied" && exchange.fact(.suberror) == "body_suberror" && exchange.fact(.errorSubcode) == "cancel")
    }

    /// The token a refresh request presents, as the journal redacts it, is the one whose handle the receipt names.
    @Test func aPresentedRefreshTokenIsKnownByItsHandle() {
        let token = "0.AUEA-refresh-token-text"
        let presenting = { (value: String) in
            Exchange(id: 1, time: Synthetic.t0, method: "POST", path: "/token", kind: "token", status: 200,
                     parameters: ["refresh_token": Redaction.redact(value, name: "refresh_token")])
        }
        #expect(presenting(token).presentsRefreshToken(Receipt.handleID(token)))
        #expect(!presenting(token + "x").presentsRefreshToken(Receipt.handleID(token)))
        #expect(!Exchange(id: 1, time: Synthetic.t0, method: "POST", path: "/token", kind: "token", status: 200).presentsRefreshToken(Receipt.handleID(token)))
    }

    /// A report keeps the facts under their names, as it always did, and reads them back unchanged.
    @Test func factsKeepTheirNamesInAReport() throws {
        let exchange = Exchange(
            id: 3, time: Synthetic.t0, method: "GET", path: "/authorize", kind: "authorize", status: 302,
            answer: Receipt.Answer(errorCodes: [65004], expiresIn: 3599, retryAfter: "3",
                                   redirectError: Receipt.RedirectError(error: "access_denied", subcode: "cancel", errorDescription: "AADSTS65004: declined")),
            errorCode: "AADSTS65004", flowStep: "consent", rules: [0, 2])
        let data = try ConformanceJSON.encoder().encode(exchange)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["answer"] as? [String: String] == [
            "error": "access_denied", "error_subcode": "cancel", "error_description": "AADSTS65004: declined", "error_codes": "65004",
            "expires_in": "3599", "retry-after": "3", "error_code": "AADSTS65004", "flow_step": "consent", "rules": "0,2",
        ])
        let read = try ConformanceJSON.decoder().decode(Exchange.self, from: data)
        for fact in AnswerFact.allCases { #expect(read.fact(fact) == exchange.fact(fact), "\(fact)") }
        #expect(try ConformanceJSON.encoder().encode(read) == data)
    }
}
