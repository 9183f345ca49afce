package import EntraHTTP
package import FoundationGaps
import ExchangeKernel
import IdentityPlatform
package import LocatedJSON
package import Scenarios

/// The control API's errors render themselves in its one documented shape (docs/scenarios.md):
/// `{"error": {"code", "message", "problems"?}}`, problems as `{file, line, column, path, message, text}`.
/// The console's token mint and the unknown-path answer under `/_fakeentra/` use it too.
extension ScenarioEngineError: HTTPResponseError {
    package func response(in _: Void) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        if !problems.isEmpty {
            writer.key("problems")
            writer.beginArray()
            for problem in problems {
                writer.beginObject()
                writer.key("file")
                writer.string(problem.file)
                writer.key("line")
                writer.int(problem.location.line)
                writer.key("column")
                writer.int(problem.location.column)
                writer.key("path")
                writer.string(problem.path)
                writer.key("message")
                writer.string(problem.message)
                writer.key("text")
                writer.string(problem.description)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        writer.endObject()
        var response = HTTPResponse.controlJSON(status: status, body: writer.bytes)
        // Every 401 of the control API asks for its bearer secret; a 503 says when to try again.
        if status == 401 { response.headers.set("WWW-Authenticate", "Bearer realm=\"fakeentra\"") }
        if status == 503 { response.headers.set("Retry-After", "5") }
        return response
    }

    package static func unauthorized() -> ScenarioEngineError {
        ScenarioEngineError(status: 401, code: "unauthorized", message: "the control API requires Authorization: Bearer <secret>")
    }

    /// A state-changing request a web page of another origin made a browser send.
    package static func crossSite(_ detail: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 403, code: "cross_site_request", message: "FakeEntra refuses state-changing requests from other origins: \(detail)")
    }

    package static func unsupportedMediaType(_ type: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 415, code: "unsupported_media_type", message: "the control API takes application/json, not \(type)")
    }

    package static func loopbackOnly() -> ScenarioEngineError {
        ScenarioEngineError(status: 403, code: "forbidden", message: "the control API answers loopback clients only; start the server with a control secret to use it remotely")
    }

    /// A change `--state` could not keep (`Retry-After: 5` on the answer, as the services' 503 carries).
    package static func stateNotDurable(_ reason: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 503, code: "state_not_durable", message: ScenarioEngine.notDurableMessage(reason))
    }

    package static func noControlEndpoint(_ path: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 404, code: "not_found", message: "No control endpoint at \(path). See GET /_fakeentra/health.")
    }
}

extension HTTPResponse {
    /// An answer of the control plane (`/_fakeentra/…`), an error or not: JSON, never cached.
    package static func controlJSON(status: Int, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(status), headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"], body: body)
    }
}

extension ScenarioEngineError {
    package static func invalidBody(_ problems: [JSONProblem], message: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 422, code: "invalid_body", message: message, problems: problems)
    }

    package static func clockOutOfRange(offset: TimeInterval, seconds: TimeInterval) -> ScenarioEngineError {
        let limit = Int(VirtualClock.offsetLimit)
        return ScenarioEngineError(status: 400, code: "clock_out_of_range",
                                   message: "advancing by \(seconds) s would take the clock's offset (now \(offset) s) outside ±\(limit) s (100 years)")
    }
}
