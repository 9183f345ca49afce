public import Foundation

/// How control API calls reach the server: URLSession from an iOS app's tests (`FakeEntraURLSessionTransport`),
/// or FakeEntraTesting's in-process and socket clients.
public protocol FakeEntraControlTransport: Sendable {
    /// One request; `path` is absolute on the server (`/_fakeentra/bindings?binding=b1`).
    func exchange(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) async throws -> (status: Int, body: [UInt8])
}

/// The control API (`/_fakeentra/…`) as a test drives it: bind a scenario, move the clock, read the
/// outbox and the journal, mint a token. It links no OpenSSL and no SQLite, so an iOS unit or UI test
/// target can use it while the server runs on the Mac (docs/testing-swift.md).
///
///     let control = FakeEntraControl(baseURL: URL(string: "http://127.0.0.1:8080")!, controlSecret: secret)
///     let binding = try await control.bind(scenario: "mfa-required", to: .client(clientID))
///     try await control.advanceClock(by: 3600, in: binding)
public struct FakeEntraControl: Sendable {
    public let transport: any FakeEntraControlTransport
    public let controlSecret: String?

    public init(transport: any FakeEntraControlTransport, controlSecret: String? = nil) {
        self.transport = transport
        self.controlSecret = controlSecret
    }

    /// Mints a token for `user` (nil: an app-only token) and `clientID` with `scopes`, signed with the
    /// server's key; no sign-in, no consent. The scopes name the audience (`api://orders/Orders.Read`).
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
        let (status, object, raw) = try await call("POST", "/_fakeentra/tokens", json: body)
        guard status == 201, let token = object?["token"] as? String, let expiresOn = object?["expiresOn"] as? Double else {
            throw FakeEntraControlError.unexpected("minting a token", status: status, body: raw)
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
        let (status, object, raw) = try await call("POST", "/_fakeentra/bindings", json: body)
        guard status == 201, let id = object?["id"] as? String else { throw FakeEntraControlError.unexpected("binding \(scenario)", status: status, body: raw) }
        return FakeEntraBinding(id: id, scenario: scenario)
    }

    /// Ends a binding; its requests go to the default world again.
    public func unbind(_ binding: FakeEntraBinding) async throws {
        let (status, _, raw) = try await call("DELETE", "/_fakeentra/bindings/\(binding.id)")
        guard status == 204 else { throw FakeEntraControlError.unexpected("unbinding \(binding.id)", status: status, body: raw) }
    }

    /// Moves the virtual clock of the default world (or of `binding`'s) forward by `seconds`; returns
    /// the new now. Tokens, codes and sessions expire as if that time had passed.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval, in binding: FakeEntraBinding? = nil) async throws -> Date {
        var body: [String: any Sendable] = ["seconds": seconds]
        body["binding"] = binding?.id
        return try Self.clockNow(try await call("POST", "/_fakeentra/clock/advance", json: body), "advancing the clock")
    }

    /// The virtual clock's now in the default world (or `binding`'s).
    public func now(in binding: FakeEntraBinding? = nil) async throws -> Date {
        let query = binding.map { "?binding=\($0.id)" } ?? ""
        return try Self.clockNow(try await call("GET", "/_fakeentra/clock" + query), "reading the clock")
    }

    /// The messages FakeEntra sent to `address`, an email address or a phone number as written on the user
    /// (External ID's one-time codes by email or text message, B2C's reset codes), oldest first: the code a
    /// person would read is `.last?.code`. `clientID` reads the world the
    /// app's requests go to (a binding for that client id), as an XCUITest of that app does.
    public func outbox(for address: String, in binding: FakeEntraBinding? = nil, clientID: String? = nil) async throws -> [FakeEntraEmail] {
        var query = "?to=" + Self.encoded(address)
        if let binding { query += "&binding=\(binding.id)" }
        if let clientID { query += "&clientId=" + Self.encoded(clientID) }
        let (status, object, raw) = try await call("GET", "/_fakeentra/outbox" + query)
        guard status == 200, let messages = object?["messages"] as? [[String: Any]] else {
            throw FakeEntraControlError.unexpected("reading the outbox of \(address)", status: status, body: raw)
        }
        return messages.compactMap { message in
            guard let to = message["to"] as? String, let subject = message["subject"] as? String, let code = message["code"] as? String else { return nil }
            return FakeEntraEmail(to: to, subject: subject, code: code)
        }
    }

    /// The journal's entries (newest last), as `GET /_fakeentra/journal` filters them: requests whose path
    /// contains `path`, answered `status`.
    public func journal(path: String? = nil, status: Int? = nil) async throws -> [FakeEntraJournalEntry] {
        var parameters: [String] = []
        if let path { parameters.append("path=" + Self.encoded(path)) }
        if let status { parameters.append("status=\(status)") }
        let (code, object, raw) = try await call("GET", "/_fakeentra/journal" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")))
        guard code == 200, let entries = object?["entries"] as? [[String: Any]] else {
            throw FakeEntraControlError.unexpected("reading the journal", status: code, body: raw)
        }
        return entries.compactMap { entry in
            guard let id = entry["id"] as? Int, let method = entry["method"] as? String, let path = entry["path"] as? String,
                  let status = entry["status"] as? Int else { return nil }
            return FakeEntraJournalEntry(id: id, method: method, path: path, status: status)
        }
    }

    /// Restores the start state: of one binding's world, or of everything.
    public func reset(_ binding: FakeEntraBinding? = nil) async throws {
        let (status, _, raw) = try await call("POST", "/_fakeentra/reset", json: binding.map { ["binding": $0.id] } ?? [:])
        guard status == 200 else { throw FakeEntraControlError.unexpected("resetting", status: status, body: raw) }
    }

    private static func clockNow(_ answer: (Int, [String: Any]?, [UInt8]), _ what: String) throws -> Date {
        guard answer.0 == 200, let text = answer.1?["now"] as? String else { throw FakeEntraControlError.unexpected(what, status: answer.0, body: answer.2) }
        guard let date = Self.internetDate(text) else { throw FakeEntraControlError("\(what): not a timestamp: \(text)") }
        return date
    }

    /// RFC 3339 as the control API writes it (`2026-11-29T01:02:03Z`, fractions of a second optional).
    static func internetDate(_ text: String) -> Date? {
        if let exact = try? Date(text, strategy: .iso8601) { return exact }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// A control API call, with the secret as its bearer: the status, the body as a JSON object (nil when
    /// it is not one) and the raw body.
    private func call(_ method: String, _ path: String, json: [String: any Sendable]? = nil) async throws -> (Int, [String: Any]?, [UInt8]) {
        var headers: [(String, String)] = []
        if let controlSecret { headers.append(("Authorization", "Bearer \(controlSecret)")) }
        var body: [UInt8] = []
        if let json {
            headers.append(("Content-Type", "application/json"))
            body = try FoundationJSON.bytes(of: json)
        }
        let answer = try await transport.exchange(method, path, headers: headers, body: body)
        return (answer.status, FoundationJSON.dictionary(from: answer.body), answer.body)
    }
}

/// A token minted by the platform's own claims builder and signing key: it validates against the
/// published JWKS exactly like one from a sign-in.
public struct FakeEntraToken: Sendable {
    /// The compact JWS, for an `Authorization: Bearer` header.
    public var token: String
    public var expiresOn: Date

    public init(token: String, expiresOn: Date) {
        self.token = token
        self.expiresOn = expiresOn
    }

    /// The payload's claims.
    public var claims: [String: Any] {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return [:] }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64) else { return [:] }
        return FoundationJSON.dictionary(from: Array(payload)) ?? [:]
    }
}

/// An active scenario binding (`POST /_fakeentra/bindings`).
public struct FakeEntraBinding: Sendable, Equatable {
    /// The binding's id (`b1`, …): pass it to `advanceClock(by:in:)` and `mintToken(…, in:)` for its world.
    public var id: String
    public var scenario: String

    public init(id: String, scenario: String) {
        self.id = id
        self.scenario = scenario
    }
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

/// An email FakeEntra sent: a one-time code to verify an address or sign in.
public struct FakeEntraEmail: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var code: String
}

/// One request of the journal, as its list shows it.
public struct FakeEntraJournalEntry: Sendable, Equatable {
    public var id: Int
    public var method: String
    public var path: String
    public var status: Int
}
