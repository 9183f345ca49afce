import EntraHTTP
import Foundation
import LocatedJSON
import ControlPlane
import Scenarios
import Testing

/// The control API's one documented error shape: `{"error": {"code", "message", "problems"?}}`.
@Suite struct ControlErrorTests {
    func render<E: HTTPResponseError>(_ error: E, in trace: E.Trace) throws -> (HTTPResponse, [String: Any]) {
        let response = error.response(in: trace)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (response, try #require(object["error"] as? [String: Any]))
    }

    @Test func anErrorHasCodeAndMessageAndNothingAtTheTopLevel() throws {
        let (response, error) = try render(ScenarioEngineError.noControlEndpoint("/_fakeentra/nope"), in: ())
        #expect(response.status.code == 404)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(error["code"] as? String == "not_found")
        #expect((error["message"] as? String)?.contains("/_fakeentra/nope") == true)
        #expect(error["problems"] == nil)
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"error":{"#))
    }

    @Test func aRefusedBodyCarriesItsLocatedProblems() throws {
        let bad = Array(#"{"a": }"#.utf8)
        let problems: [JSONProblem]
        do {
            _ = try LocatedJSON.parse(bad, file: "body")
            problems = []
        } catch {
            problems = error.problems
        }
        try #require(!problems.isEmpty)
        let (response, error) = try render(ScenarioEngineError(status: 422, code: "invalid_body", message: "refused", problems: problems), in: ())
        #expect(response.status.code == 422)
        let first = try #require((error["problems"] as? [[String: Any]])?.first)
        #expect(first["file"] as? String == "body")
        #expect(first["line"] as? Int == 1)
        #expect(first["column"] is Int && first["path"] is String && first["message"] is String && first["text"] is String)
    }

    @Test func aMissingSecretAsksForTheBearer() throws {
        let (response, error) = try render(ScenarioEngineError.unauthorized(), in: ())
        #expect(response.status.code == 401)
        #expect(response.headers["WWW-Authenticate"] == "Bearer realm=\"fakeentra\"")
        #expect(error["code"] as? String == "unauthorized")
    }
}
