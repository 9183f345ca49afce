import EntraCrypto
import EntraHTTP
import ExchangeKernel
import Foundation
import IdentityFixtures
import LocatedJSON
import Synchronization
import Testing
@testable import IdentityPlatform

private typealias F = TokenFixtures

/// OnPasswordSubmit's just-in-time migration through the password grant: what the extension receives
/// (the documented envelope and an encrypted password context it can open), and each of its answers.
@Suite struct PasswordMigrationTests {
    static let flag = "extension_0c5a7f3e2d1b4e8a9f6c5b4a3c2d1e0f_toBeMigrated"
    static let jordan = "4a7c9e21-3b5d-4f8a-b6c0-2e1d9f8a7b63"
    static let legacyPassword = "Legacy-Secret-1"
    static let extensionKey: SigningCredential = try! SigningCredential.generate(commonName: "JitMigration")

    /// The developer's endpoint: opens the context with the certificate's key and answers with `action`
    /// (and the nonce it was sent, unless `nonce` says otherwise).
    final class LegacySystem: ExtensionTransport {
        let action: String
        let nonce: String?
        let received = Mutex<[JSONValue]>([])
        let contexts = Mutex<[JSONValue]>([])

        init(action: String, nonce: String? = nil) {
            self.action = action
            self.nonce = nonce
        }

        func post(to endpoint: ExtensionEndpoint, headers: [(String, String)], body: [UInt8], timeout: Duration) -> ExtensionTransportResult {
            guard let request = LocatedJSON.parse(body: body), let token = request["data"]?["encryptedPasswordContext"]?.string,
                  let plaintext = JWE.decrypt(token, with: PasswordMigrationTests.extensionKey.privateKey),
                  let context = LocatedJSON.parse(body: plaintext) else {
                return .answered(status: 400, contentType: "text/plain", body: [])
            }
            received.withLock { $0.append(request) }
            contexts.withLock { $0.append(context) }
            let echoed = nonce ?? context["nonce"]?.string ?? ""
            let answer = #"{"data":{"@odata.type":"microsoft.graph.onPasswordSubmitResponseData","actions":[{"@odata.type":"microsoft.graph.passwordSubmit.\#(action)","title":"Blocked","message":"Call support."}],"nonce":"\#(echoed)"}}"#
            return .answered(status: 200, contentType: "application/json", body: Array(answer.utf8))
        }
    }

    func service(_ endpoint: LegacySystem, flagged: Bool = true, directory: Directory = F.directory) -> IdentityService {
        var options = IdentityOptions()
        options.extensionTransport = ExtensionTransportReference(endpoint)
        let (service, _) = F.service(options: options, directory: directory)
        service.directory.withLock { directory in
            let index = directory.tenants.firstIndex { $0.id == Directory.woodgroveTenantID }!
            directory.tenants[index].customAuthenticationExtensions = [CustomAuthenticationExtension(
                id: "761fcc06-379a-4544-b2b3-f5aa1dc4ae0d", listenerID: "1aeebe49-233d-4a1f-afe5-5c08cb8172ff", displayName: "JIT",
                event: .passwordSubmit, targetURL: "https://legacy.example/api/migrate", resourceID: "api://legacy.example/55555555-2222-3333-4444-555555555555",
                applications: [F.nativeAppID, NativeAuthTests.app], migrationPropertyID: Self.flag, encryptionCertificate: Self.extensionKey.certificate.pem)]
            let user = directory.users.firstIndex { $0.id == Self.jordan }!
            directory.users[user].attributes = [Self.flag: flagged ? "true" : "false"]
        }
        return service
    }

    func signIn(_ password: String, service: IdentityService) -> HTTPResponse {
        F.send(F.post("/\(Directory.woodgroveTenantID)/oauth2/v2.0/token", [
            ("grant_type", "password"), ("client_id", F.nativeAppID), ("username", "jordan@woodgrove.example"),
            ("password", password), ("scope", "openid offline_access"),
        ]), to: service)
    }

    func jordan(_ service: IdentityService) -> DirectoryUser { service.currentDirectory.user(id: Self.jordan)! }

    @Test func aLegacyPasswordIsMigratedOnceAndTheFlagCleared() throws {
        let legacy = LegacySystem(action: "MigratePassword")
        let service = service(legacy)
        #expect(signIn(Self.legacyPassword, service: service).status == .ok)
        #expect(jordan(service).attributes?[Self.flag] == "false")
        #expect(jordan(service).accepts(password: Self.legacyPassword))
        #expect(signIn(Self.legacyPassword, service: service).status == .ok)
        #expect(legacy.received.withLock { $0.count } == 1, "a migrated user signs in without the extension")

        let request = try #require(legacy.received.withLock { $0.first })
        #expect(request["type"]?.string == "microsoft.graph.authenticationEvent.passwordSubmit")
        #expect(request["data"]?["@odata.type"]?.string == "microsoft.graph.onPasswordSubmitCalloutData")
        #expect(request["data"]?["authenticationContext"]?["user"]?["id"]?.string == Self.jordan)
        #expect(request["data"]?["authenticationContext"]?["resourceServicePrincipal"]?.isNull == true)
        let context = try #require(legacy.contexts.withLock { $0.first })
        #expect(context["user-password"]?.string == Self.legacyPassword)
        #expect(context["username"]?.string == "jordan@woodgrove.example")
        #expect(context["aud"]?.string == "55555555-2222-3333-4444-555555555555")
        #expect(context["iss"]?.string == "api://legacy.example/55555555-2222-3333-4444-555555555555")
        #expect((context["exp"]?.number?.literal).flatMap(Int.init)! - (context["iat"]?.number?.literal).flatMap(Int.init)! == 600)
    }

    /// The header the service writes: RSA-OAEP, A128CBC-HS256, the certificate's thumbprint, deflated.
    @Test func theContextIsAJWEForTheExtensionsCertificate() throws {
        let token = try JWE.encrypt(Array("{}".utf8), to: Self.extensionKey.certificate)
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"RSA-OAEP","enc":"A128CBC-HS256","x5t":"\#(Self.extensionKey.keyID)","zip":"DEF"}"#)
        #expect(JWE.decrypt(token, with: Self.extensionKey.privateKey) == Array("{}".utf8))
        var tampered = Array(token.utf8)
        tampered[tampered.count - 30] = tampered[tampered.count - 30] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(JWE.decrypt(String(decoding: tampered, as: UTF8.self), with: Self.extensionKey.privateKey) == nil, "a changed byte fails the tag")
        #expect(JWE.decrypt(token, with: F.credential.privateKey) == nil, "another key opens nothing")
    }

    /// The account's own password clears the flag without a call: "the user is silently marked as migrated".
    @Test func theAccountsOwnPasswordMigratesSilently() {
        let legacy = LegacySystem(action: "Retry")
        let service = service(legacy)
        #expect(signIn(Directory.demoPassword, service: service).status == .ok)
        #expect(legacy.received.withLock { $0.isEmpty })
        #expect(jordan(service).attributes?[Self.flag] == "false")
    }

    @Test func retryBlockUpdateAndABadNonce() {
        let retry = service(LegacySystem(action: "Retry"))
        #expect(F.errorCode(signIn(Self.legacyPassword, service: retry)) == 50126)
        #expect(jordan(retry).attributes?[Self.flag] == "true", "a refused password migrates nothing")

        #expect(F.errorCode(signIn(Self.legacyPassword, service: service(LegacySystem(action: "Block")))) == 50053)

        let update = service(LegacySystem(action: "UpdatePassword"))
        #expect(F.errorCode(signIn(Self.legacyPassword, service: update)) == 50055, "the password is right but must change")
        #expect(jordan(update).passwordExpired && jordan(update).attributes?[Self.flag] == "false")

        let wrongNonce = service(LegacySystem(action: "MigratePassword", nonce: "d7c30ed9-2d8e-40c9-aee8-a205e9734308"))
        #expect(F.errorCode(signIn(Self.legacyPassword, service: wrongNonce)) == 1100001)
        #expect(jordan(wrongNonce).attributes?[Self.flag] == "true")
        let noNonce = service(LegacySystem(action: "MigratePassword", nonce: ""))
        #expect(F.errorCode(signIn(Self.legacyPassword, service: noNonce)) == 1100001, "an empty nonce is not the request's")
    }

    /// Without the flag a wrong password is just wrong: the extension is not called.
    @Test func anUnflaggedUserIsNeverSentToTheExtension() {
        let legacy = LegacySystem(action: "MigratePassword")
        #expect(F.errorCode(signIn(Self.legacyPassword, service: service(legacy, flagged: false))) == 50126)
        #expect(legacy.received.withLock { $0.isEmpty })
    }

    /// Native authentication V1: the password sent to /token with the flow's continuation token.
    @Test func nativeAuthenticationV1ChecksThePasswordTheSameWay() {
        func signIn(_ service: IdentityService) -> (status: Int, body: [String: Any]) {
            let started = NativeAuthTests.initiate(NativeAuthTests.jordan, service: service)
            let challenged = NativeAuthTests.challenge(started.body["continuation_token"], service: service)
            return NativeAuthTests.token([("grant_type", "password"), ("password", Self.legacyPassword),
                                          ("continuation_token", challenged.body["continuation_token"] as? String ?? "")], service: service)
        }
        let legacy = LegacySystem(action: "MigratePassword")
        let migrating = service(legacy, directory: .embeddedDefault)
        #expect(signIn(migrating).status == 200)
        #expect(legacy.contexts.withLock { $0.first?["username"]?.string } == NativeAuthTests.jordan)
        #expect(jordan(migrating).attributes?[Self.flag] == "false")
        let blocked = signIn(service(LegacySystem(action: "Block"), directory: .embeddedDefault))
        #expect(blocked.status == 400 && NativeAuthTests.firstCode(blocked.body) == 50053)
        // No native step changes an expired password: the sign-in goes through, the password stays expired
        // for the pages to ask for a new one (docs/limits.md).
        let weak = service(LegacySystem(action: "UpdatePassword"), directory: .embeddedDefault)
        #expect(signIn(weak).status == 200 && jordan(weak).passwordExpired)
    }

    /// A password set by the user ends the migration: the legacy password can no longer replace it.
    @Test func aPasswordChangeClearsTheFlag() {
        let legacy = LegacySystem(action: "MigratePassword")
        let service = service(legacy)
        service.directory.withLock { directory in _ = directory.changePassword(userID: Self.jordan, to: "Chosen-N3w-pass", now: Date()) }
        #expect(jordan(service).attributes?[Self.flag] == "false")
        #expect(F.errorCode(signIn(Self.legacyPassword, service: service)) == 50126)
        #expect(legacy.received.withLock { $0.isEmpty })
    }

    /// A migration that finds the flag already cleared (a concurrent sign-in, a reset) writes nothing.
    @Test func aMigrationWritesOnlyWhileTheFlagIsTrue() {
        var directory = F.directory
        let index = directory.users.firstIndex { $0.id == Self.jordan }!
        directory.users[index].attributes = [Self.flag: "false"]
        #expect(directory.migrate(userID: Self.jordan, flag: Self.flag) { $0.password = "legacy" } == nil)
        #expect(directory.users[index].password != "legacy")
        directory.users[index].attributes = [Self.flag: "true"]
        #expect(directory.migrate(userID: Self.jordan, flag: Self.flag) { $0.password = "legacy" }?.password == "legacy")
    }

    @Test func theConfigurationIsChecked() {
        func problems(_ ext: String, users: String = "[]") -> [String] {
            let text = """
            {"tenants": [{"id": "\(Directory.woodgroveTenantID)", "domains": ["woodgrove.onmicrosoft.com"], "kind": "external",
              "customAuthenticationExtensions": [\(ext)]}], "users": \(users)}
            """
            do {
                _ = try ConfigurationLoader.load(bytes: Array(text.utf8), file: "config.json")
                return []
            } catch {
                return error.problems.map(\.message)
            }
        }
        let base = #""event": "passwordSubmit", "targetUrl": "https://a.example/x", "resourceId": "api://a.example/app""#
        let pem = Self.extensionKey.certificate.pem.replacingOccurrences(of: "\n", with: "\\n")
        #expect(problems("{\(base), \"migrationPropertyId\": \"\(Self.flag)\", \"encryptionCertificate\": \"\(pem)\"}").isEmpty)
        #expect(problems("{\(base), \"encryptionCertificate\": \"\(pem)\"}").first?.contains("without migrationPropertyId") == true)
        #expect(problems("{\(base), \"migrationPropertyId\": \"\(Self.flag)\"}").first?.contains("without encryptionCertificate") == true)
        #expect(problems("{\(base), \"migrationPropertyId\": \"toBeMigrated\", \"encryptionCertificate\": \"\(pem)\"}").first?.contains("not a directory extension") == true)
        let user = #"[{"userPrincipalName": "a@woodgrove.onmicrosoft.com", "displayName": "A", "attributes": {"favouriteColour": "red"}}]"#
        #expect(problems("{\(base), \"migrationPropertyId\": \"\(Self.flag)\", \"encryptionCertificate\": \"\(pem)\"}", users: user).first?.contains("not a user attribute") == true)
    }
}
