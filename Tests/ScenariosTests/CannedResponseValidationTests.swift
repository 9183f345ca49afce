import Foundation
import LocatedJSON
import Testing
@testable import Scenarios

/// A canned `response` must be one the transport can send as written.
/// `{"status": 100}` used to validate and leave a keep-alive client waiting forever; header names with
/// spaces were sent as-is.
@Suite struct CannedResponseValidationTests {
    private func problems(response: String) -> [String] {
        let text = """
        {
          "name": "canned",
          "description": "x",
          "rules": [{ "action": { "response": \(response) } }]
        }
        """
        switch ScenarioLibrary.parse(Array(text.utf8), file: "canned.json") {
        case .success: return []
        case .failure(let failure): return failure.problems.map { "\($0.location.line):\($0.location.column) \($0.message)" }
        }
    }

    @Test func interimAndOutOfRangeStatusesAreRefusedAtTheStatus() {
        for status in [100, 101, 103, 199, 600, 999] {
            let found = problems(response: #"{"status": \#(status)}"#)
            #expect(found.count == 1, "\(status)")
            #expect(found.first?.hasPrefix("4:50 ") == true, "\(status): \(found)")
        }
        #expect(problems(response: #"{"status": 200, "body": "ok"}"#).isEmpty)
        #expect(problems(response: #"{"status": 599}"#).isEmpty)
    }

    @Test func statusesWithoutContentRefuseABody() {
        for status in [204, 205, 304] {
            let found = problems(response: #"{"status": \#(status), "body": "not allowed"}"#)
            #expect(found == ["4:63 a \(status) response carries no content: remove \"body\" or pick another status"])
            #expect(problems(response: #"{"status": \#(status)}"#).isEmpty)
            #expect(problems(response: #"{"status": \#(status), "body": ""}"#).isEmpty)
        }
    }

    @Test func headerNamesMustBeTokensAndValuesFreeOfControls() {
        let spaced = problems(response: #"{"status": 200, "headers": {"X Bad Name": "v"}}"#)
        #expect(spaced.count == 1)
        #expect(spaced.first?.hasPrefix("4:67 \"X Bad Name\" is not a header name") == true, "\(spaced)")
        #expect(problems(response: #"{"status": 200, "headers": {"X-Ok(": "v"}}"#).count == 1)
        #expect(problems(response: #"{"status": 200, "headers": {"": "v"}}"#).count == 1)
        let injected = problems(response: #"{"status": 200, "headers": {"X-Note": "a\r\nSet-Cookie: x=1"}}"#)
        #expect(injected.count == 1)
        #expect(injected.first?.hasPrefix("4:77 ") == true, "\(injected)")
        let framing = problems(response: #"{"status": 200, "headers": {"Content-Length": "999"}}"#)
        #expect(framing.first?.contains("written by the server itself") == true, "\(framing)")
        #expect(problems(response: #"{"status": 200, "headers": {"X-Request-Id": "abc 123", "Retry-After": "5"}}"#).isEmpty)
    }
}
