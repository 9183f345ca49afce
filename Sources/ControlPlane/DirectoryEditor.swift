import ExchangeKernel
import EntraHTTP
import FoundationGaps
import IdentityPlatform
import LocatedJSON
import Scenarios

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
        case ("GET", "users", 1): return ControlAPI.json(200, .object(["users": .array(service.currentDirectory.users.map(DirectoryJSON.userView))]))
        case ("POST", "users", 1): return try write(.user, from: body.bytes)
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
            return ControlAPI.json(200, .object(["user": .string(user.userPrincipalName), "tokensValidFrom": .string(IdentityErrorDates.iso(now))]))
        case ("GET", "apps", 1): return ControlAPI.json(200, .object(["apps": .array(service.currentDirectory.applications.map(DirectoryJSON.appView))]))
        case ("POST", "apps", 1): return try write(.app, from: body.bytes)
        case ("PATCH", "apps", 2): return try change(.app, key: segments[1])
        case ("DELETE", "apps", 2):
            let removed = service.directory.withLock { d -> Bool in
                let before = d.applications.count
                d.applications.removeAll { $0.clientID.caseInsensitiveCompare(segments[1]) == .orderedSame }
                return d.applications.count != before
            }
            guard removed else { throw .notFound("app", segments[1]) }
            return HTTPResponse(status: HTTPStatus(204))
        case ("GET", "consents", 1): return ControlAPI.json(200, .object(["consents": .array(service.currentDirectory.consents.map(DirectoryJSON.consent))]))
        case ("POST", "consents", 1): return try write(.consent, from: body.bytes)
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

    /// The entry a PATCH replaces (by its key before the change).
    private enum Original {
        case user(id: String)
        case app(clientID: String)
    }

    /// Validates a body against the entry's schema, then adds it (201) or, for a PATCH, replaces
    /// `original` with it (200). Keys stay unique: a UPN, user id, client id or consent key that
    /// another entry holds is a 409, and nothing changes.
    private func write(_ kind: Kind, from bytes: [UInt8], replacing original: Original? = nil) throws(ScenarioEngineError) -> HTTPResponse {
        let file = "request body"
        let value: JSONValue
        do { value = try LocatedJSON.validate(bytes, file: file, schema: kind.schema) }
        catch { throw .invalidBody(error.problems, message: "the \(kind.rawValue) was rejected") }
        var decoder = DirectoryEntryDecoder(reader: JSONReader(file: file), base: service.currentDirectory)
        // Each entry is written under the directory's lock and answered as stored.
        let apply: ((inout Directory) -> Result<JSONValue, ScenarioEngineError>)?
        switch kind {
        case .user:
            apply = decoder.user(value, path: "").map { user in
                { d in Self.put(user, replacing: original, in: &d).map(DirectoryJSON.userView) }
            }
        case .app:
            apply = decoder.application(value, path: "").map { app in
                { d in Self.put(app, replacing: original, in: &d).map { .failure($0) } ?? .success(DirectoryJSON.appView(app)) }
            }
        case .consent:
            apply = decoder.consent(value, path: "").map { grant in
                { d in
                    if d.consents.contains(where: { $0.hasSameKey(as: grant) }) {
                        return .failure(.conflict("consent", "client \(grant.clientID), resource \(grant.resourceAppID), \(grant.userID.map { "user \($0)" } ?? "every user")",
                                                  hint: "DELETE it first"))
                    }
                    d.consents.append(grant)
                    return .success(DirectoryJSON.consent(grant))
                }
            }
        }
        guard decoder.reader.problems.isEmpty, let apply else { throw .invalidBody(decoder.reader.problems, message: "the \(kind.rawValue) was rejected") }
        let view = try service.directory.withLock { d in apply(&d) }.get()
        return ControlAPI.json(original == nil ? 201 : 200, view)
    }

    /// The user as stored, or why not.
    private static func put(_ user: DirectoryUser, replacing original: Original?, in d: inout Directory) -> Result<DirectoryUser, ScenarioEngineError> {
        var keep = Array(d.users.indices)
        var slot: Int?
        if case .user(let id) = original {
            guard let index = d.users.firstIndex(where: { $0.id == id }) else { return .failure(.notFound("user", id)) }
            slot = index
            keep = keep.filter { $0 != index }
        }
        if let clash = keep.first(where: { d.users[$0].id == user.id }) {
            return .failure(.conflict("user", "id \(user.id)", hint: "held by \(d.users[clash].userPrincipalName)"))
        }
        if keep.contains(where: { d.users[$0].userPrincipalName.caseInsensitiveCompare(user.userPrincipalName) == .orderedSame }) {
            return .failure(.conflict("user", user.userPrincipalName, hint: "PATCH /_fakeentra/users/\(user.userPrincipalName) changes it"))
        }
        guard let slot else {
            d.users.append(user)
            return .success(user)
        }
        // What the entry's JSON does not hold stays as it was: a revocation's instant, attributes it leaves out.
        var replacement = user
        replacement.tokensValidFrom = d.users[slot].tokensValidFrom
        if let changed = user.attributes {
            replacement.attributes = (d.users[slot].attributes ?? [:]).merging(changed) { _, new in new }
        } else {
            replacement.attributes = d.users[slot].attributes
        }
        d.users[slot] = replacement
        return .success(replacement)
    }

    private static func put(_ app: Application, replacing original: Original?, in d: inout Directory) -> ScenarioEngineError? {
        func same(_ a: String, _ b: String) -> Bool { a.caseInsensitiveCompare(b) == .orderedSame }
        var slot: Int?
        if case .app(let clientID) = original {
            guard let index = d.applications.firstIndex(where: { same($0.clientID, clientID) }) else { return .notFound("app", clientID) }
            slot = index
        }
        if d.applications.indices.contains(where: { $0 != slot && same(d.applications[$0].clientID, app.clientID) }) {
            return .conflict("app", app.clientID, hint: "PATCH /_fakeentra/apps/\(app.clientID) changes it")
        }
        if let slot { d.applications[slot] = app } else { d.applications.append(app) }
        return nil
    }

    /// PATCH: the entry as it is, with the body's members laid over it, validated as a whole.
    private func change(_ kind: Kind, key: String) throws(ScenarioEngineError) -> HTTPResponse {
        var current: JSONValue
        let original: Original
        switch kind {
        case .user:
            let user = try findUser(key)
            current = DirectoryJSON.user(user)
            original = .user(id: user.id)
        case .app:
            guard let app = service.currentDirectory.application(clientID: key) else { throw .notFound("app", key) }
            current = DirectoryJSON.app(app)
            original = .app(clientID: app.clientID)
        case .consent: throw .badRequest("consents are added with POST and removed with DELETE")
        }
        for member in body.object.members ?? [] { current = current.setting(member.key, to: member.value.isNull ? nil : member.value) }
        return try write(kind, from: DirectoryJSON.bytes(current), replacing: original)
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
        return ControlAPI.json(200, .object(["removed": .int(removed)]))
    }

    private func findUser(_ key: String) throws(ScenarioEngineError) -> DirectoryUser {
        let directory = service.currentDirectory
        guard let user = directory.user(signInName: key) ?? directory.user(id: key) else { throw .notFound("user", key) }
        return user
    }
}

extension ConsentGrant {
    /// Grants with the same key (client, resource, user, tenant) are one grant.
    func hasSameKey(as other: ConsentGrant) -> Bool {
        clientID.caseInsensitiveCompare(other.clientID) == .orderedSame && resourceAppID == other.resourceAppID
            && userID == other.userID && tenantID == other.tenantID
    }
}

extension ScenarioEngineError {
    static func conflict(_ what: String, _ key: String, hint: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 409, code: "conflict", message: "a \(what) with key \"\(key)\" already exists (\(hint))")
    }

    static func notFound(_ what: String, _ key: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 404, code: "not_found", message: "no \(what) \"\(key)\"")
    }
}
