import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import ExchangeKernel
import IdentityPlatform
@testable import StateStore
import Testing

/// `--state` as a database should behave: one server per folder, no silent fresh start over a file it
/// cannot read, and no change acknowledged that is not on disk.
@Suite("State store: locks, unreadable files, writes that fail")
struct StateSafetyTests {
    static let credential: SigningCredential = try! SigningCredential.generate()

    /// One saved user 10 bytes short, as a damaged file would hold it.
    static let truncateFirstUser = """
        UPDATE directory_rows SET value = substr(value, 1, length(value) - 10)
        WHERE kind = 'user' AND key = (SELECT key FROM directory_rows WHERE kind = 'user' ORDER BY sequence LIMIT 1)
        """

    func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "fakeentra-state-\(UUID().uuidString)"
    }

    func attached(_ directory: String) throws -> (IdentityService, SQLiteStateStore) {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        let store = try SQLiteStateStore(directory: directory)
        try store.attach(service)
        return (service, store)
    }

    func send(_ application: FakeEntraApplication, _ method: String, _ target: String, contentType: String? = nil, body: String = "") -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8443"]
        if let contentType { headers.set("Content-Type", contentType) }
        return application.responder.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)),
                                             context: ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443))
    }

    static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    @Test func theFolderIsLockedUntilItsHolderLetsGo() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var first: StateDirectoryLock? = try StateDirectoryLock(directory: directory)
        #expect(throws: StateStoreError.inUse(directory: directory, holder: getpid())) { try StateDirectoryLock(directory: directory) }
        #expect(String(describing: StateStoreError.inUse(directory: directory, holder: 42)).hasPrefix("another fakeentra (pid 42) is serving \(directory)"))
        withExtendedLifetime(first) {}
        first = nil
        #expect(throws: Never.self) { _ = try StateDirectoryLock(directory: directory) }
    }

    /// A session's key as the store writes it: the digest of its cookie.
    static let sessionKey = String(repeating: "ab", count: 32)

    /// A session an earlier version kept by its cookie is not served, and its row is deleted.
    @Test func aSessionKeptByItsCookieIsDropped() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, store) = try attached(directory)
        try store.withDatabase { database throws(SQLiteError) in
            try database.run("INSERT INTO records (world, store, key, value, forget_at) VALUES ('default', 'sessions', 'the-cookie-itself', x'7b', 1e12)", [])
        }
        _ = try attached(directory)
        let left = try store.withDatabase { database throws(SQLiteError) in try database.run("SELECT key FROM records WHERE store = 'sessions'", columns: 1) }
        #expect(left.isEmpty)
    }

    @Test func aDirectoryItCannotReadStopsTheStartAndIsLeftAsItWas() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, store) = try attached(directory)
        first.directory.withLock { $0.users[0].displayName = "Kept" }
        try store.withDatabase { database throws(SQLiteError) in
            try database.run(Self.truncateFirstUser, [])
        }
        let kept = try store.withDatabase { database throws(SQLiteError) in try database.run("SELECT key, value FROM directory_rows ORDER BY sequence", columns: 2) }
        var failure: StateStoreError?
        do { _ = try attached(directory) } catch { failure = error as? StateStoreError }
        guard case .unreadable(let path, let what, let reason)? = failure else { Issue.record("attached: \(String(describing: failure))"); return }
        #expect(path.hasSuffix("/fakeentra.sqlite3") && what.hasPrefix("the saved directory of world \"default\"") && !reason.isEmpty)
        #expect(String(describing: failure!).contains("--state-reset"))
        let after = try store.withDatabase { database throws(SQLiteError) in try database.run("SELECT key, value FROM directory_rows ORDER BY sequence", columns: 2) }
        #expect(after == kept, "nothing was written over it")

        // A record (a session, a refresh token) that does not decode stops the start too.
        try store.withDatabase { database throws(SQLiteError) in try database.run("DELETE FROM directory_rows", []) }
        try store.withDatabase { database throws(SQLiteError) in
            try database.run("INSERT INTO records (world, store, key, value, forget_at) VALUES ('default', 'sessions', ?, x'7b', 1e12)", [.text(Self.sessionKey)])
        }
        #expect { _ = try attached(directory) } throws: { error in
            guard case .unreadable(_, let what, _) = error as? StateStoreError else { return false }
            return what.contains("1 saved record") && what.contains("sessions \(Self.sessionKey)")
        }

        // --state-reset starts over on purpose.
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        try SQLiteStateStore(directory: directory, reset: true).attach(service)
        #expect(service.currentDirectory.users == Directory.embeddedDefault.users)
    }

    /// The disk fills (SQLite's page limit, as a full disk answers): the request whose change could not be
    /// written gets 503 in its endpoint's format, and health says degraded with the reason.
    @Test func aWriteThatCannotBeMadeIsNotAcknowledged() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (service, store) = try attached(directory)
        let application = FakeEntraApplication(service: service)
        #expect(send(application, "GET", "/_fakeentra/health").status.code == 200)
        try store.withDatabase { database throws(SQLiteError) in
            let pages = try database.run("PRAGMA page_count", columns: 1).first?.first.map { String(decoding: $0, as: UTF8.self) } ?? "1"
            try database.execute("PRAGMA max_page_count = \(pages)")
        }
        let user = #"{"userPrincipalName": "erin@contoso.onmicrosoft.com", "displayName": "\#(String(repeating: "E", count: 20_000))"}"#
        let created = send(application, "POST", "/_fakeentra/users", contentType: "application/json", body: user)
        #expect(created.status.code == 503 && (Self.json(created)["error"] as? [String: Any])?["code"] as? String == "state_not_durable",
                "\(String(decoding: created.body, as: UTF8.self))")
        #expect(created.headers["Retry-After"] == "5")

        let health = send(application, "GET", "/_fakeentra/health")
        #expect(health.status.code == 503 && Self.json(health)["status"] as? String == "degraded")
        #expect((Self.json(health)["reason"] as? String)?.contains("full") == true, "\(Self.json(health))")
    }

    /// The file deleted (or replaced) under the running server: found at the next write, answered 503 in
    /// the format of the endpoint that wrote.
    @Test func aFileDeletedUnderTheServerIsFoundAtTheNextWrite() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (service, store) = try attached(directory)
        let application = FakeEntraApplication(service: service)
        #expect(unlink(store.path) == 0)
        let created = send(application, "POST", "/_fakeentra/users", contentType: "application/json",
                           body: #"{"userPrincipalName": "frank@contoso.onmicrosoft.com", "displayName": "Frank"}"#)
        #expect(created.status.code == 503)
        #expect(service.durability.degradedReason?.contains("was deleted or replaced while the server ran") == true)
        // A sign-in stores a refresh token: the token endpoint's own 503.
        let token = send(application, "POST", "/organizations/oauth2/v2.0/token", contentType: "application/x-www-form-urlencoded", body:
            "grant_type=password&client_id=0d3b8b6c-7a4e-4f1d-9c2b-3e5f6a7b8c9d&username=adele.vance%40contoso.onmicrosoft.com&password=Passw0rd%21&scope=openid%20offline_access%20User.Read")
        let answer = Self.json(token)
        #expect(token.status.code == 503 && answer["error"] as? String == "temporarily_unavailable", "\(answer)")
        #expect((answer["error_codes"] as? [Int]) == [90033] && (answer["error_description"] as? String)?.hasPrefix("AADSTS90033:") == true)

        // Reads still answer.
        #expect(send(application, "GET", "/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize").status.code == 200)
    }
}
