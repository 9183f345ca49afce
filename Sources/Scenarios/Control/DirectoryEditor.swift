import EntraHTTP
import Foundation
import IdentityPlatform
import LocatedJSON

/// Users, apps and consents of one world, changed at runtime:
/// `GET|POST /users`, `PATCH|DELETE /users/{upn or id}`, `POST /users/{upn}/revoke`,
/// `GET|POST /apps`, `PATCH|DELETE /apps/{clientId}`, `GET|POST|DELETE /consents`.
struct DirectoryEditor {
    let world: ScenarioWorld
    let body: Body
    let request: HTTPRequest

    private var service: IdentityService { world.service }

    func handle(method: String, segments: [String]) throws(ScenarioEngineError) -> HTTPResponse? {
        switch (method, segments[0], segments.count) {
        case ("GET", "users", 1): return ControlAPI.json(200, ["users": service.currentDirectory.users.map(DirectoryJSON.userView)])
        case ("POST", "users", 1): return try add(.user, from: body.bytes)
        case ("PATCH", "users", 2): return try change(.user, key: segments[1])
        case ("DELETE", "users", 2):
            let user = try findUser(segments[1])
            service.directory.withLock { d in
                d.users.removeAll { $0.id == user.id }
                d.consents.removeAll { $0.userID == user.id }
            }
            return HTTPResponse(status: HTTPStatus(204))
        case ("POST", "users", 3) where segments[2] == "revoke":
            let user = try findUser(segments[1])
            let now = service.clock.now()
            service.directory.withLock { d in
                if let index = d.users.firstIndex(where: { $0.id == user.id }) { d.users[index].tokensValidFrom = now }
            }
            return ControlAPI.json(200, ["user": user.userPrincipalName, "tokensValidFrom": IdentityErrorDates.iso(now)])
        case ("GET", "apps", 1): return ControlAPI.json(200, ["apps": service.currentDirectory.applications.map(DirectoryJSON.appView)])
        case ("POST", "apps", 1): return try add(.app, from: body.bytes)
        case ("PATCH", "apps", 2): return try change(.app, key: segments[1])
        case ("DELETE", "apps", 2):
            let removed = service.directory.withLock { d -> Bool in
                let before = d.applications.count
                d.applications.removeAll { $0.clientID.caseInsensitiveCompare(segments[1]) == .orderedSame }
                return d.applications.count != before
            }
            guard removed else { throw .notFound("app", segments[1]) }
            return HTTPResponse(status: HTTPStatus(204))
        case ("GET", "consents", 1): return ControlAPI.json(200, ["consents": service.currentDirectory.consents.map(DirectoryJSON.consent)])
        case ("POST", "consents", 1): return try add(.consent, from: body.bytes)
        case ("DELETE", "consents", 1): return try revokeConsent()
        default: return nil
        }
    }

    enum Kind: String {
        case user, app, consent
        var schema: JSONSchema {
            switch self {
            case .user: ControlSchemas.user
            case .app: ControlSchemas.app
            case .consent: ControlSchemas.consent
            }
        }
    }

    /// Validates a body against the entry's schema and adds (or replaces) the entry.
    private func add(_ kind: Kind, from bytes: [UInt8]) throws(ScenarioEngineError) -> HTTPResponse {
        let file = "request body"
        let value: JSONValue
        do { value = try LocatedJSON.validate(bytes, file: file, schema: kind.schema) }
        catch { return ControlAPI.problems(error.problems, message: "the \(kind.rawValue) was rejected") }
        var decoder = DirectoryEntryDecoder(reader: JSONReader(file: file), base: service.currentDirectory)
        var view: [String: Any] = [:]
        switch kind {
        case .user:
            if let user = decoder.user(value, path: "") {
                service.directory.withLock { d in
                    d.users.removeAll { $0.id == user.id }
                    d.users.append(user)
                }
                view = DirectoryJSON.userView(user)
            }
        case .app:
            if let app = decoder.application(value, path: "") {
                service.directory.withLock { d in
                    d.applications.removeAll { $0.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame }
                    d.applications.append(app)
                }
                view = DirectoryJSON.appView(app)
            }
        case .consent:
            if let grant = decoder.consent(value, path: "") {
                service.directory.withLock { $0.grantConsent(grant) }
                view = DirectoryJSON.consent(grant)
            }
        }
        guard decoder.reader.problems.isEmpty else { return ControlAPI.problems(decoder.reader.problems, message: "the \(kind.rawValue) was rejected") }
        return ControlAPI.json(201, view)
    }

    /// PATCH: the entry as it is, with the body's members laid over it, validated as a whole.
    private func change(_ kind: Kind, key: String) throws(ScenarioEngineError) -> HTTPResponse {
        var current: [String: Any]
        switch kind {
        case .user: current = DirectoryJSON.user(try findUser(key))
        case .app:
            guard let app = service.currentDirectory.application(clientID: key) else { throw .notFound("app", key) }
            current = DirectoryJSON.app(app)
        case .consent: throw .badRequest("consents are added with POST and removed with DELETE")
        }
        for (name, value) in body.object { current[name] = value is NSNull ? nil : value }
        return try add(kind, from: DirectoryJSON.data(current))
    }

    private func revokeConsent() throws(ScenarioEngineError) -> HTTPResponse {
        let clientID = try body.requiredString("clientId")
        let directory = service.currentDirectory
        let userID = try body.string("user").map { name throws(ScenarioEngineError) in try findUser(name).id }
        let resourceID = body.string("resource").map { directory.resource(named: $0)?.appID ?? $0.lowercased() }
        let removed = service.directory.withLock { d -> Int in
            let before = d.consents.count
            d.consents.removeAll { grant in
                grant.clientID.caseInsensitiveCompare(clientID) == .orderedSame && grant.userID == userID
                    && (resourceID == nil || grant.resourceAppID == resourceID)
            }
            return before - d.consents.count
        }
        guard removed > 0 else { throw .notFound("consent for client", clientID) }
        return ControlAPI.json(200, ["removed": removed])
    }

    private func findUser(_ key: String) throws(ScenarioEngineError) -> DirectoryUser {
        let directory = service.currentDirectory
        guard let user = directory.user(signInName: key) ?? directory.user(id: key) else { throw .notFound("user", key) }
        return user
    }
}

extension ScenarioEngineError {
    static func notFound(_ what: String, _ key: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 404, code: "not_found", message: "no \(what) \"\(key)\"")
    }
}
