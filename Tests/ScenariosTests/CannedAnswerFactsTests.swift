import ExchangeKernel
import IdentityPlatform
import Scenarios
import Testing

/// A scripted or replayed answer is sent as written; what its body states is read once, when the
/// scenario is loaded, and noted in the receipt as a rendered answer's facts are.
@Suite struct CannedAnswerFactsTests {
    @Test func anOAuthErrorsFactsAreReadFromTheBody() {
        let canned = CannedResponse(status: 400, body: #" {"error": "invalid_grant", "suberror": "bad_token", "error_codes": [70000, 50173]}"#)
        #expect(canned.answer == Receipt.Answer(error: "invalid_grant", suberror: "bad_token", errorCodes: [70000, 50173]))
    }

    @Test func aTokenAnswersNumbersMayBeStrings() {
        let canned = CannedResponse(status: 200, body: #"{"scope": "User.Read", "expires_in": "3599", "refresh_in": 1800, "refresh_token": "rt"}"#)
        #expect(canned.answer == Receipt.Answer(scope: "User.Read", expiresIn: 3599, refreshIn: 1800, refreshToken: Receipt.handleID("rt")))
    }

    @Test func anErrorObjectNamesItsCode() {
        #expect(CannedResponse(status: 429, body: #"{"error": {"code": "TooManyRequests", "message": "slow down"}}"#).answer.error == "TooManyRequests")
    }

    @Test func otherTextStatesNothingAndAChangedBodyIsReadAgain() {
        var canned = CannedResponse(status: 200, body: "<html>")
        #expect(canned.answer.isEmpty)
        canned.body = #"{"interval": 5, "issuer": "https://login.example/v2.0"}"#
        #expect(canned.answer == Receipt.Answer(interval: 5, issuer: "https://login.example/v2.0"))
    }
}
