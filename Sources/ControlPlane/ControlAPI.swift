import ExchangeKernel
import EntraHTTP
import IdentityPlatform
import LocatedJSON
import Scenarios

/// `/_fakeentra/…`: load and bind scenarios, reset, move the clock, edit the directory at runtime.
/// JSON in and out; errors are `{"error":{"code","message","problems"?}}`. The caller has passed
/// `ControlAccess` (`ControlPlane`).
struct ControlAPI {
    let commands: ControlCommands
    var engine: ScenarioEngine { commands.engine }

    /// nil: no control endpoint at this path.
    func respond(to request: HTTPRequest) -> HTTPResponse? {
        do {
            return try route(request, segments: Array(request.pathSegments.dropFirst()))
        } catch {
            return error.response
        }
    }

    private func route(_ request: HTTPRequest, segments: [String]) throws(ScenarioEngineError) -> HTTPResponse? {
        let method = request.method.uppercased()
        let body = try Body(request)
        switch (method, segments.first, segments.count) {
        case ("GET", "scenarios", 1):
            let scenarios = engine.library.scenarios.values.sorted { $0.name < $1.name }.map { s in
                JSONValue.object([
                    "name": .string(s.name), "summary": .string(s.summary), "description": .string(s.description),
                    "rules": .int(s.rules.count), "source": .string(s.source),
                ])
            }
            return Self.json(200, .object(["scenarios": .array(scenarios)]))
        case ("POST", "scenarios", 1):
            switch engine.load(file: request.body, name: request.query["file"] ?? "request body") {
            case .success(let scenario): return Self.json(201, .object(["name": .string(scenario.name), "rules": .int(scenario.rules.count)]))
            case .failure(let report): return Self.problems(report.problems, message: "the scenario file was rejected")
            }
        case ("GET", "bindings", 1):
            return Self.json(200, .object(["bindings": .array(engine.bindings.map(Self.view))]))
        case ("GET", "bindings", 2):
            guard let info = engine.bindings.first(where: { $0.id == segments[1] }), let world = engine.world(binding: info.id) else {
                throw .unknownBinding(segments[1])
            }
            let rules = zip(world.scenario?.rules ?? [], world.counters).map { rule, counter in
                JSONValue.object(omittingNil: [
                    "matched": .int(counter.matched), "fired": .int(counter.fired), "times": .string(rule.times.description),
                    "note": rule.note.map(JSONValue.string),
                ])
            }
            let view = Self.view(info).setting("rules", to: .array(rules)).setting("elapsedSeconds", to: .double(world.elapsed))
            return Self.json(200, view)
        case ("POST", "bindings", 1):
            let info = try commands.bind(scenario: try body.requiredString("scenario"), to: try body.target())
            return Self.json(201, Self.view(info))
        case ("DELETE", "bindings", 2):
            try commands.unbind(id: segments[1])
            return HTTPResponse(status: HTTPStatus(204))
        case ("POST", "reset", 1):
            try commands.reset(binding: body.string("binding") ?? request.query["binding"])
            return Self.json(200, .object(["reset": .string(body.string("binding") ?? request.query["binding"] ?? "all")]))
        case ("GET", "clock", 1):
            return Self.json(200, clockView(try world(request, body)))
        case ("POST", "clock", 2) where segments[1] == "advance":
            guard let seconds = body.number("seconds") else { throw .badRequest("give \"seconds\": a number of seconds to advance") }
            return Self.json(200, clockView(try commands.advanceClock(binding: request.query["binding"] ?? body.string("binding"), by: seconds)))
        case ("GET", "outbox", 1):
            guard let address = request.query["to"], !address.isEmpty else { throw .badRequest("give ?to=ADDRESS: the email address or phone number whose messages to list") }
            // Without a binding, the world the app's sign-in went to (`clientId`, the address's user), as a
            // person's inbox is wherever the service that mailed them is.
            let service = if request.query["binding"] != nil || body.string("binding") != nil {
                try world(request, body).service
            } else {
                try commands.world(servingClient: request.query["clientId"], user: address).service
            }
            let messages = service.outbox.messages(to: address).map { message in
                JSONValue.object([
                    "to": .string(message.to), "subject": .string(message.subject), "code": .string(message.code),
                    "purpose": .string(message.purpose.rawValue), "sentAt": .string(IdentityErrorDates.iso(message.sentAt)),
                    "expiresAt": .string(IdentityErrorDates.iso(message.expiresAt)),
                ])
            }
            return Self.json(200, .object(["messages": .array(messages)]))
        case (_, "users", _), (_, "apps", _), (_, "consents", _):
            return try DirectoryEditor(world: try world(request, body), body: body, request: request).handle(method: method, segments: segments)
        default:
            return nil
        }
    }

    private func world(_ request: HTTPRequest, _ body: Body) throws(ScenarioEngineError) -> ScenarioWorld {
        try commands.world(binding: request.query["binding"] ?? body.string("binding"))
    }

    private func clockView(_ world: ScenarioWorld) -> JSONValue {
        .object([
            "binding": .string(world.id), "now": .string(IdentityErrorDates.iso(world.service.clock.now())),
            "offsetSeconds": .double(world.virtualClock?.offset ?? 0), "elapsedSeconds": .double(world.elapsed),
        ])
    }

    static func view(_ info: BindingInfo) -> JSONValue {
        let target: [(String, JSONValue)] = switch info.target {
        case .server: [("target", .string("server"))]
        case .client(let id): [("clientId", .string(id))]
        case .user(let name): [("user", .string(name))]
        case .tenantAlias(let alias, let tenant): [("tenantAlias", .string(alias)), ("tenant", .string(tenant))]
        }
        return .object([("id", .string(info.id)), ("scenario", .string(info.scenario))] + target)
    }

    // MARK: Rendering

    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        .controlJSON(status: status, body: DirectoryJSON.bytes(value))
    }

    static func problems(_ problems: [JSONProblem], message: String) -> HTTPResponse {
        ScenarioEngineError.invalidBody(problems, message: message).response
    }
}

/// A request body read as a JSON object (an empty body is an empty object).
struct Body {
    let object: JSONValue
    let bytes: [UInt8]

    init(_ request: HTTPRequest) throws(ScenarioEngineError) {
        bytes = request.body
        // Scenario files are read by the scenario loader, not here.
        if request.body.isEmpty || request.pathSegments.dropFirst().first == "scenarios" {
            object = .object([])
            return
        }
        // Parsed here rather than with `LocatedJSON.object(body:)`: a body that is not JSON is answered
        // with where it goes wrong.
        let tree: JSONValue
        do { tree = try LocatedJSON.parse(request.body, file: "request body") }
        catch { throw .invalidBody(error.problems, message: "the body is not valid JSON") }
        guard tree.members != nil else { throw .badRequest("the body must be a JSON object") }
        object = tree
    }

    func string(_ key: String) -> String? { object[key]?.string }
    func number(_ key: String) -> Double? { object[key]?.double }

    func requiredString(_ key: String) throws(ScenarioEngineError) -> String {
        guard let value = string(key), !value.isEmpty else { throw .badRequest("give \"\(key)\"") }
        return value
    }

    /// `{}` (whole server), `{"clientId"}`, `{"user"}` or `{"tenantAlias","tenant"}`.
    func target() throws(ScenarioEngineError) -> BindingTarget {
        if let target = string("target"), target != "server", string("tenantAlias") == nil, string("clientId") == nil, string("user") == nil {
            throw .badRequest("\"target\" must be \"server\"; or give clientId, user or tenantAlias")
        }
        return try BindingTarget(clientID: string("clientId"), user: string("user"), tenantAlias: string("tenantAlias"), tenant: string("tenant"))
    }
}
