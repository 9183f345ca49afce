import Foundation
import LocatedJSON
import Testing
@testable import Scenarios

/// Broken scenario files: every problem is reported at the line and column an editor would jump to.
@Suite struct ValidationTests {
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

    @Test func printProblems() {
        let text = """
        {
          "name": "Bad Name",
          "description": "",
          "rules": [
            { "match": { "endpoint": "tokens", "path": {"regex": "(unclosed"}, "nth": 1, "after": 2 },
              "action": [{ "oauthError": { "code": "AADSTS123456" } }, { "serviceError": { "status": 503 } }],
              "times": 0 }
          ]
        }
        """
        for p in problems(text) { print(p) }
    }
}

enum TestPaths {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
