import EntraCrypto
import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import StateStore
import Testing
import Synchronization

/// `--state DIR`: what one process stored, the next one finds.
@Suite("State store: SQLite persistence")
struct StateStoreTests {
    static let credential: SigningCredential = try! SigningCredential.generate()
    static let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)
    static let client = "0d3b8b6c-7a4e-4f1d-9c2b-3e5f6a7b8c9d"

    func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "fakeentra-state-\(UUID().uuidString)"
        return path
    }

    func service(at directory: String) throws -> IdentityService {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        try SQLiteStateStore(directory: directory).attach(service)
        return service
    }

    func token(_ form: [(String, String)], _ service: IdentityService) -> HTTPResponse {
        let headers: HTTPHeaders = ["Host": "login.fakeentra.test", "Content-Type": "application/x-www-form-urlencoded"]
        let request = HTTPRequest(method: "POST", target: "/organizations/oauth2/v2.0/token", headers: headers, body: Array(FormParameters(form).encoded.utf8))
        return ExchangeStack([WorldRouter([EntraHandler(service: service)])], routes: RouteResolver([EntraRoutes()])).respond(to: request, context: Self.context)
    }

    func refreshToken(of response: HTTPResponse) throws -> String {
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return try #require(body?["refresh_token"] as? String)
    }

    let signIn: [(String, String)] = [
        ("grant_type", "password"), ("client_id", client), ("username", "adele.vance@contoso.onmicrosoft.com"),
        ("password", Directory.demoPassword), ("scope", "openid offline_access https://graph.microsoft.com/User.Read"),
    ]

    func refresh(_ token: String) -> [(String, String)] {
        [("grant_type", "refresh_token"), ("client_id", Self.client), ("refresh_token", token), ("scope", "openid offline_access https://graph.microsoft.com/User.Read")]
    }

    @Test func refreshTokensAndDirectoryChangesSurviveARestart() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try service(at: directory)
        let issued = try refreshToken(of: token(signIn, first))
        first.directory.withLock { $0.users[0].displayName = "Renamed Before Restart" }

        let second = try service(at: directory)
        #expect(second.currentDirectory.users[0].displayName == "Renamed Before Restart")
        let refreshed = token(refresh(issued), second)
        #expect(refreshed.status.code == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
        let rotated = try refreshToken(of: refreshed)

        let third = try service(at: directory)
        #expect(token(refresh(rotated), third).status.code == 200)
        #expect(token(refresh("1.A-never-issued"), third).status.code == 400)
    }

    @Test func theFileIsOwnerOnlyAndHoldsNoRefreshTokenItself() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try service(at: directory)
        let issued = try refreshToken(of: token(signIn, first))
        let path = directory + "/" + SQLiteStateStore.fileName
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")) { bytes.append(wal) }
        #expect(bytes.range(of: Data(issued.utf8)) == nil, "only the token's digest is stored")
    }

    @Test func withoutAStateDirectoryNothingIsPersisted() {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        #expect(service.state.withLock { $0.persistence == nil })
    }
}
