import EntraCrypto
public import Foundation

/// A token minted by the platform's own claims builder and signing key: it validates against the
/// published JWKS exactly like one from a sign-in.
public struct FakeEntraToken: Sendable {
    /// The compact JWS, for an `Authorization: Bearer` header.
    public var token: String
    public var expiresOn: Date

    /// The payload's claims.
    public var claims: [String: Any] {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              let object = FoundationJSON.dictionary(from: payload) else { return [:] }
        return object
    }
}

/// An active scenario binding (`POST /_fakeentra/bindings`).
public struct FakeEntraBinding: Sendable, Equatable {
    /// The binding's id (`b1`, …): pass it to `advanceClock(by:in:)` and `mintToken(…, in:)` for its world.
    public var id: String
    public var scenario: String
}

/// Whose requests a scenario applies to.
public enum FakeEntraBindingTarget: Sendable, Equatable {
    /// Every request.
    case server
    /// Requests of one client id.
    case client(String)
    /// Requests for one user (UPN or object id).
    case user(String)
}

/// The token kinds the mint makes.
public enum FakeEntraTokenKind: String, Sendable {
    case access, id
}

/// Mints, bindings and the clock, through the control API (`/_fakeentra/…`): the same code
/// `fakeentra token` and the control API's users reach, in process or over the socket.
extension FakeEntraClient {
    /// Mints a token for `user` (nil: an app-only token) and `clientID` with `scopes`, signed with the
    /// server's key; no sign-in, no consent. The scopes name the audience (`api://orders/Orders.Read`).
    ///
    ///     let token = try await client.mintToken(user: "adele.vance@contoso.onmicrosoft.com", scopes: ["api://orders/Orders.Read"])
    public func mintToken(user: String? = nil, clientID: String? = nil, scopes: [String] = [], roles: [String] = [],
                          tenant: String? = nil, audience: String? = nil, lifetime: TimeInterval? = nil, kind: FakeEntraTokenKind = .access,
                          claims: [String: any Sendable] = [:], in binding: FakeEntraBinding? = nil) async throws -> FakeEntraToken {
        var body: [String: any Sendable] = ["type": kind.rawValue, "scopes": scopes, "roles": roles]
        body["user"] = user
        body["clientId"] = clientID
        body["tenant"] = tenant
        body["audience"] = audience
        body["lifetime"] = lifetime
        body["binding"] = binding?.id
        if !claims.isEmpty { body["claims"] = claims }
        let response = try await control(.post, "/_fakeentra/tokens", json: body)
        guard response.status == 201, let object = try? response.json(), let token = object["token"] as? String,
              let expiresOn = object["expiresOn"] as? Double else {
            throw FakeEntraTestingError.unexpected("minting a token", response)
        }
        return FakeEntraToken(token: token, expiresOn: Date(timeIntervalSince1970: expiresOn))
    }

    /// Activates the shipped (or a configured folder's) scenario `scenario` for `target`; its world is
    /// isolated until `unbind`.
    @discardableResult
    public func bind(scenario: String, to target: FakeEntraBindingTarget) async throws -> FakeEntraBinding {
        var body: [String: any Sendable] = ["scenario": scenario]
        switch target {
        case .server: body["target"] = "server"
        case .client(let id): body["clientId"] = id
        case .user(let name): body["user"] = name
        }
        let response = try await control(.post, "/_fakeentra/bindings", json: body)
        guard response.status == 201, let id = (try? response.json())?["id"] as? String else {
            throw FakeEntraTestingError.unexpected("binding \(scenario)", response)
        }
        return FakeEntraBinding(id: id, scenario: scenario)
    }

    /// Ends a binding; its requests go to the default world again.
    public func unbind(_ binding: FakeEntraBinding) async throws {
        let response = try await control(.delete, "/_fakeentra/bindings/\(binding.id)")
        guard response.status == 204 else { throw FakeEntraTestingError.unexpected("unbinding \(binding.id)", response) }
    }

    /// Moves the virtual clock of the default world (or of `binding`'s) forward by `seconds`; returns
    /// the new now. Tokens, codes and sessions expire as if that time had passed.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval, in binding: FakeEntraBinding? = nil) async throws -> Date {
        var body: [String: any Sendable] = ["seconds": seconds]
        body["binding"] = binding?.id
        return try Self.clockNow(try await control(.post, "/_fakeentra/clock/advance", json: body), "advancing the clock")
    }

    /// The emails FakeEntra sent to `address` (External ID's one-time codes), oldest first: the code a
    /// person would read in their inbox is `.last?.code`.
    public func outbox(for address: String, in binding: FakeEntraBinding? = nil) async throws -> [FakeEntraEmail] {
        var query = "?to=" + (address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? address)
        if let binding { query += "&binding=\(binding.id)" }
        let response = try await control(.get, "/_fakeentra/outbox" + query)
        guard response.status == 200, let messages = (try? response.json())?["messages"] as? [[String: Any]] else {
            throw FakeEntraTestingError.unexpected("reading the outbox of \(address)", response)
        }
        return messages.compactMap { message in
            guard let to = message["to"] as? String, let subject = message["subject"] as? String, let code = message["code"] as? String else { return nil }
            return FakeEntraEmail(to: to, subject: subject, code: code)
        }
    }

    /// The virtual clock's now in the default world (or `binding`'s).
    public func now(in binding: FakeEntraBinding? = nil) async throws -> Date {
        let query = binding.map { "?binding=\($0.id)" } ?? ""
        return try Self.clockNow(try await control(.get, "/_fakeentra/clock" + query), "reading the clock")
    }

    private static func clockNow(_ response: FakeEntraResponse, _ what: String) throws -> Date {
        guard response.status == 200, let text = (try? response.json())?["now"] as? String else { throw FakeEntraTestingError.unexpected(what, response) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { throw FakeEntraTestingError("\(what): not a timestamp: \(text)") }
        return date
    }

    /// A control API call, with the configured secret as its bearer.
    private func control(_ method: FakeEntraMethod, _ path: String, json: [String: any Sendable]? = nil) async throws -> FakeEntraResponse {
        if let controlSecret {
            return try await execute(method, path, headers: ["Authorization": "Bearer \(controlSecret)"], json: json)
        }
        return try await execute(method, path, json: json)
    }
}

/// An email FakeEntra sent: a one-time code to verify an address or sign in.
public struct FakeEntraEmail: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var code: String
}
