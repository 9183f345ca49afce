import ExchangeKernel
import Foundation
import LocatedJSON
import Testing
@testable import Scenarios

/// Broken scenario files: every problem is reported at the line and column an editor would jump to.
@Suite struct ValidationTests {
    /// The scenario schema's list of forgeries is the server's.
    @Test func theScenarioSchemaNamesEveryForgery() throws {
        let schema = try #require(LocatedJSON.parse(body: Array(ScenarioSchema.text.utf8)))
        let names = schema["$defs"]?["tokenForgery"]?["enum"]?.array?.compactMap { (value: JSONValue) in value.string }
        #expect(names == TokenForgery.allCases.map(\.rawValue))
    }

    private func problems(_ text: String, file: String = "test.json") -> [JSONProblem] {
        switch ScenarioLibrary.parse(Array(text.utf8), file: file) {
        case .success: return []
        case .failure(let failure): return failure.problems
        }
    }

    @Test func embeddedSchemaIsThePublishedFileVerbatim() throws {
        let published = try String(contentsOfFile: TestPaths.repository + "/docs/schemas/scenario.schema.json", encoding: .utf8)
        #expect(published == ScenarioSchema.text)
        _ = ScenarioSchema.compiled
    }

    @Test func minimalScenarioLoads() throws {
        let text = """
        {"name": "tiny", "description": "Nothing happens.", "rules": []}
        """
        #expect(problems(text).isEmpty)
    }

    @Test func wrongTypeIsReportedAtTheValue() {
        let text = """
        {
          "name": "wrong-type",
          "description": "x",
          "rules": [
            { "match": { "endpoint": "token", "nth": "two" },
              "action": { "delay": 10 } }
          ]
        }
        """
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.location.line == 5)
        #expect(found.first?.location.column == 46)
        #expect(found.first?.message.contains("\"nth\" must be an integer") == true)
    }

    @Test func unknownFieldListsTheExpectedOnes() {
        let text = """
        {
          "name": "unknown-field",
          "description": "x",
          "rules": [
            { "matches": {}, "action": { "delay": 10 } }
          ]
        }
        """
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.location.line == 5)
        #expect(found.first?.location.column == 7)
        #expect(found.first?.message == "unknown field \"matches\" (expected one of: action, match, note, times)")
    }

    @Test func badJSONStopsAtTheSyntaxError() {
        let text = "{\n  \"name\": \"x\",\n  \"rules\": [,]\n}"
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.location.line == 3)
        #expect(found.first?.location.column == 13)
    }
}

enum TestPaths {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}

/// Each kind of mistake, reported once, at the place to fix.
@Suite struct ValidationProblemTests {
    private func problems(_ text: String) -> [JSONProblem] {
        switch ScenarioLibrary.parse(Array(text.utf8), file: "s.json") {
        case .success: return []
        case .failure(let failure): return failure.problems
        }
    }

    /// `rules` placed on line 2 so each rule starts at a known column of line 2.
    private func rule(_ text: String) -> [JSONProblem] {
        problems("{\"name\": \"r\", \"description\": \"d\",\n\"rules\": [\(text)]}")
    }

    @Test func timesOfZeroIsRefused() {
        let found = rule(#"{"action": {"delay": 1}, "times": 0}"#)
        #expect(found.map(\.description) == ["s.json:2:45: \"times\" must be at least 1, found 0"])
    }

    @Test func unknownEndpointKindListsTheKnownOnes() {
        let found = rule(#"{"match": {"endpoint": ["token", "tokn"]}, "action": {"delay": 1}}"#)
        #expect(found.count == 1)
        #expect(found.first?.location.column == 44)
        #expect(found.first?.message.contains("\"discovery\", \"metadata\", \"keys\", \"authorize\", \"token\"") == true)
    }

    @Test func badRegexesAreReportedWhereTheyAreWritten() {
        let found = rule(#"{"match": {"headers": {"User-Agent": {"regex": "[MSAL"}}}, "action": {"delay": 1}}"#)
        #expect(found.map(\.description) == ["s.json:2:58: invalid regular expression \"[MSAL\": unclosed \"[\" (at character 1)"])
    }

    @Test func nthAndAfterTogetherAreAmbiguous() {
        let found = rule(#"{"match": {"nth": 2, "after": 1}, "action": {"delay": 1}}"#)
        #expect(found.map(\.description) == ["s.json:2:32: give either \"nth\" or \"after\", not both"])
    }

    @Test func aRuleAnswersOnlyOnce() {
        let found = rule(#"{"action": [{"serviceError": {"status": 503}}, {"dropConnection": true}]}"#)
        #expect(found.map(\.description) == ["s.json:2:22: a rule may answer the request only once, found serviceError and dropConnection (split them into rules with nth or times)"])
    }

    @Test func unknownCodesNeedTheirWording() {
        let found = rule(#"{"action": {"oauthError": {"code": "AADSTS999999", "error": "invalid_grant"}}}"#)
        #expect(found.map(\.description) == ["s.json:2:46: FakeEntra has no wording for AADSTS999999: give \"message\" too"])
        #expect(rule(#"{"action": {"oauthError": {"code": "AADSTS999999", "error": "invalid_grant", "message": "m"}}}"#).isEmpty)
        #expect(rule(#"{"action": {"oauthError": {"code": "AADSTS50076"}}}"#).isEmpty, "known codes need nothing else")
    }

    @Test func unknownFieldInsideAnActionNamesTheActions() {
        let found = rule(#"{"action": {"oauthErrror": {"code": "AADSTS50076"}}}"#)
        #expect(found.count == 1)
        #expect(found.first?.location.column == 23)
        #expect(found.first?.message.hasPrefix("unknown field \"oauthErrror\" (expected one of: advanceClock, browserRequired, claimsChallenge, declineScopes, delay,") == true)
    }

    @Test func onlyNativeAuthenticationHandsAJourneyToTheBrowser() {
        #expect(rule(#"{"match": {"endpoint": "nativeauth"}, "action": {"browserRequired": {"reason": "r"}}}"#).isEmpty)
        #expect(rule(#"{"match": {"endpoint": "nativeauth"}, "action": {"browserRequired": {}}}"#).isEmpty, "the service's words")
        for match in [#"{}"#, #"{"endpoint": "token"}"#, #"{"endpoint": ["nativeauth", "authorize"]}"#] {
            let found = rule(#"{"match": \#(match), "action": {"browserRequired": {}}}"#)
            #expect(found.count == 1 && found.first?.message.hasPrefix("browserRequired is native authentication's answer") == true, "\(match): \(found)")
        }
    }

    @Test func serviceErrorsAreThrottlingOrOutages() {
        let found = rule(#"{"action": {"serviceError": {"status": 404}}}"#)
        #expect(found.map(\.description) == ["s.json:2:50: \"status\" must be at least 429, found 404"])
    }

    @Test func directoryEntriesAreCheckedToo() {
        let text = """
        {"name": "d", "description": "d", "rules": [],
         "directory": {
           "users": [{"userPrincipalName": "kim@contoso.onmicrosoft.com", "tenant": "fabrikam.com", "mfaRequired": "yes"}],
           "consents": [{"clientId": "app", "user": "nobody@contoso.com", "scopes": ["User.Read"]}]
         }}
        """
        #expect(problems(text).map(\.description) == [
            "s.json:3:77: unknown tenant \"fabrikam.com\" (known: 4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70, contoso.onmicrosoft.com, contoso.com, 9188040d-6c67-4c5b-b112-36a304b66dad, live.com, outlook.com, hotmail.com, 8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93, woodgrove.onmicrosoft.com)",
            "s.json:3:108: \"mfaRequired\" must be a boolean, found string \"yes\"",
            "s.json:4:45: unknown user \"nobody@contoso.com\" (a UPN or object id of the directory or of this file's users)",
        ])
    }

    @Test func everyProblemOfAFileAtOnce() {
        let found = rule(#"{"match": {"nth": "1", "method": "FETCH"}, "action": {"delay": -1, "declineScopes": []}, "times": "twice"}"#)
        #expect(found.count == 5)
        #expect(found.map(\.location.line).allSatisfy { $0 == 2 })
        #expect(found.map(\.location.column) == found.map(\.location.column).sorted(), "in document order")
    }
}

@Suite struct AnswerPlacementTests {
    private func messages(_ rule: String) -> [String] {
        switch ScenarioLibrary.parse(Array(#"{"name": "p", "description": "d", "rules": [\#(rule)]}"#.utf8), file: "p.json") {
        case .success: return []
        case .failure(let failure): return failure.problems.map(\.message)
        }
    }

    @Test func answersMustFitTheEndpoint() {
        #expect(messages(#"{"match": {"endpoint": "graph"}, "action": {"oauthError": {"code": "AADSTS50076"}}}"#)
            == ["Microsoft Graph does not answer with OAuth errors: use graphError or claimsChallenge"])
        #expect(messages(#"{"match": {"endpoint": "token"}, "action": {"claimsChallenge": {}}}"#)
            == ["claimsChallenge is a Microsoft Graph answer, but \"endpoint\" excludes graph"])
        #expect(messages(#"{"match": {"endpoint": ["graph", "token"]}, "action": {"serviceError": {"status": 503}}}"#).isEmpty)
    }
}
