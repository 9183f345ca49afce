import Conformance
import EntraHTTP
import FoundationGaps
import LocatedJSON
import Scenarios

/// `/_fakeentra/conformance/…`: the conformance suite for clients that cannot be driven by a command
/// (an iOS app under XCUITest).
///
/// - `GET  /_fakeentra/conformance/cases` — the catalogue
/// - `POST /_fakeentra/conformance/runs` `{"cases"?: glob, "level"?: "required"|"all", "client"?: "public"|"secret"|"certificate"}` — 201 `{"run", "cases"}`
/// - `GET  /_fakeentra/conformance/runs/{run}` — the results so far
/// - `POST /_fakeentra/conformance/runs/{run}/cases/{case}/start` `{"mcpServer"?: url}` — the client id, authority, user and journey
///   (`mcpServer`: where the app's MCP server listens, for a case whose app calls one)
/// - `POST /_fakeentra/conformance/runs/{run}/cases/{case}/rollover` — the registration takes the start's next certificate
/// - `POST /_fakeentra/conformance/runs/{run}/cases/{case}/finish` `{"outcomes": [reply…]}` — the verdict
struct ConformanceEndpoints {
    let sessions: ConformanceSessions

    func respond(to request: HTTPRequest, context: ConnectionFacts) -> HTTPResponse {
        let segments = Array(request.pathSegments.dropFirst(2))
        do {
            switch (request.method.uppercased(), segments.count) {
            case ("GET", 1) where segments[0] == "cases":
                return Self.json(200, Catalogue.all.map(CaseListing.init))
            case ("POST", 1) where segments[0] == "runs":
                let body = try Self.object(request)
                let level = body["level"]?.string.flatMap(Catalogue.LevelFilter.init(rawValue:)) ?? .all
                let client = try Self.clientKind(body["client"])
                let (id, cases) = try sessions.createRun(cases: body["cases"]?.string, level: level, client: client)
                return Self.json(201, RunCreated(run: id, cases: cases.map(CaseListing.init)))
            case ("GET", 2) where segments[0] == "runs":
                return Self.json(200, RunResults(run: segments[1], results: try sessions.results(run: segments[1])))
            case ("POST", 5) where segments[0] == "runs" && segments[2] == "cases" && segments[4] == "start":
                let body = try Self.object(request)
                if let named = body["mcpServer"], named.string == nil {
                    throw ConformanceError(status: 422, code: "invalid_body", message: "\"mcpServer\" must be a string: the URL your MCP server listens at")
                }
                return Self.json(200, try sessions.start(run: segments[1], case: segments[3], baseURL: Self.baseURL(request, context: context),
                                                         mcpServer: body["mcpServer"]?.string))
            case ("POST", 5) where segments[0] == "runs" && segments[2] == "cases" && segments[4] == "rollover":
                try sessions.rollCertificate(run: segments[1], case: segments[3])
                return Self.json(200, ["rolled": segments[3]])
            case ("POST", 5) where segments[0] == "runs" && segments[2] == "cases" && segments[4] == "finish":
                let body = try Self.object(request)
                guard let conformanceCase = Catalogue.named(segments[3]) else { throw ConformanceError.unknownCase(segments[3]) }
                let outcomes = try Self.outcomes(body["outcomes"], journey: conformanceCase.journey)
                return Self.json(200, try sessions.finish(run: segments[1], case: segments[3], outcomes: outcomes, stderrTail: body["stderrTail"]?.string))
            default:
                throw ConformanceError(status: 404, code: "not_found", message: "no conformance endpoint \(request.method) \(request.rawPath)")
            }
        } catch let error as ConformanceError {
            return ScenarioEngineError(status: error.status, code: error.code, message: error.message).response
        } catch {
            return ScenarioEngineError(status: 500, code: "internal", message: "\(error)").response
        }
    }

    static func clientKind(_ value: JSONValue?) throws(ConformanceError) -> ClientKind {
        guard let value else { return .publicClient }
        guard let kind = value.string.flatMap(ClientKind.init(rawValue:)) else {
            throw ConformanceError(status: 422, code: "invalid_body", message: "\"client\" must be \(ClientKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        return kind
    }

    /// Each step's reported outcome by `id`; a step with none reported is `not_sent`.
    static func outcomes(_ value: JSONValue?, journey: [JourneyStep]) throws(ConformanceError) -> [StepOutcome] {
        guard let list = value?.array, list.allSatisfy({ $0.members != nil }) else {
            throw ConformanceError(status: 422, code: "invalid_body", message: "\"outcomes\" must be an array of step replies ({\"id\", \"ok\", \"error\"?, …})")
        }
        return journey.map { step in
            guard let object = list.first(where: { $0["id"]?.int == step.id }) else {
                return StepOutcome(id: step.id, step: step.step, observed: .notSent, startedAt: nil, endedAt: nil)
            }
            let started = object["startedAt"]?.string.flatMap(ReportDates.parse)
            let ended = object["endedAt"]?.string.flatMap(ReportDates.parse)
            return StepOutcome.reply(object, for: step, startedAt: started, endedAt: ended)
        }
    }

    static func object(_ request: HTTPRequest) throws(ConformanceError) -> JSONValue {
        if request.body.isEmpty { return .object([]) }
        // Read leniently, as an adapter's replies on stdin are (`StepOutcome.parse`): a finish carries the
        // same replies, from clients written in many languages whose JSON libraries differ in what they emit.
        guard let object = LocatedJSON.object(lenientBody: request.body) else {
            throw ConformanceError(status: 422, code: "invalid_body", message: "the body must be a JSON object")
        }
        return object
    }

    static func baseURL(_ request: HTTPRequest, context: ConnectionFacts) -> String {
        let host = request.headers["Host"] ?? "127.0.0.1:\(context.localPort)"
        return (context.isSecure ? "https://" : "http://") + host
    }

    static func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        let encoder = ConformanceJSON.encoder()
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return .controlJSON(status: status, body: Array(body))
    }
}
