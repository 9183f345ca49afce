@testable import Journal
import EntraCrypto
import EntraHTTP
import EntraServer
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
@testable import FakeEntraApp

/// Every secret the service knows — configured passwords and client secrets, a
/// client assertion, an authorization code, access/id/refresh tokens, a device code — sent through
/// every way it can arrive, and none of them found in the journal, its HAR export or the access log.
@Suite struct JournalRedactionTests {
    static let webApp = "5a0c9d8e-7f6b-4a3c-9d2e-1b0a9f8e7d6c"
    static let webSecret = "Qx8~webSecret.Value_0123"
    static let redirect = "http://localhost/callback"
    static let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)

    struct Server {
        let app: FakeEntraApplication
        var accessLog: [String] = []

        init() throws {
            var directory = Directory.embeddedDefault
            directory.applications.append(Application(clientID: JournalRedactionTests.webApp, displayName: "Web", isPublicClient: false,
                                                      secrets: [.init(value: JournalRedactionTests.webSecret)], redirectURIs: [JournalRedactionTests.redirect]))
            var options = IdentityOptions()
            options.autoLogin = true
            let service = IdentityService(directory: directory, keys: SigningKeyRing(current: try SigningCredential.generate()),
                                          clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)), options: options)
            app = FakeEntraApplication(service: service)
        }

        mutating func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") -> HTTPResponse {
            var h = HTTPHeaders()
            h.set("Host", "login.fake.test")
            for (name, value) in headers { h.add(name, value) }
            let response = app.responder.respond(to: HTTPRequest(method: method, target: target, headers: h, body: Array(body.utf8)), context: JournalRedactionTests.context)
            accessLog.append(AccessLog.line(method: method, target: target, status: response.status.code, nanoseconds: 1000))
            return response
        }
    }

    static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    static func form(_ pairs: [(String, String)]) -> String { FormParameters(pairs).encoded }

    @Test func noSecretReachesTheJournalTheHAROrTheAccessLog() throws {
        var server = try Server()
        let tokenPath = "/organizations/oauth2/v2.0/token"
        let formType = ("Content-Type", "application/x-www-form-urlencoded")
        // Obtain the secrets the server issues.
        let verifier = "verifier-0123456789-0123456789-0123456789-0123456789"
        let authorize = server.send("GET", "/organizations/oauth2/v2.0/authorize?" + Self.form([
            ("client_id", Self.webApp), ("response_type", "code"), ("redirect_uri", Self.redirect), ("scope", "openid profile offline_access User.Read"),
            ("login_hint", "adele.vance@contoso.onmicrosoft.com"), ("code_challenge", PKCE.challenge(for: verifier, method: .s256)), ("code_challenge_method", "S256"),
        ]))
        let location = try #require(authorize.headers["Location"])
        let code = try #require(FormParameters(decoding: String(location[location.index(after: location.firstIndex(of: "?")!)...]))["code"])
        let tokens = Self.json(server.send("POST", tokenPath, headers: [formType], body: Self.form([
            ("grant_type", "authorization_code"), ("client_id", Self.webApp), ("client_secret", Self.webSecret), ("code", code),
            ("redirect_uri", Self.redirect), ("code_verifier", verifier), ("scope", "openid profile offline_access User.Read"),
        ])))
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let accessToken = try #require(tokens["access_token"] as? String)
        let idToken = try #require(tokens["id_token"] as? String)
        let device = Self.json(server.send("POST", "/organizations/oauth2/v2.0/devicecode", headers: [formType], body: Self.form([("client_id", "0f0f0f0f-1111-4222-8333-444444444444"), ("scope", "User.Read")])))
        let deviceCode = try #require(device["device_code"] as? String)
        let assertion = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJjbGllbnQiLCJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJlLWJ5dGVzLXNpZ25hdHVyZS1ieXRlcw"
        let newPassword = "N3w-Passw0rd!"
        let secrets: [(name: String, value: String)] = [
            ("password", Directory.demoPassword), ("client_secret", Self.webSecret), ("client_assertion", assertion), ("code", code),
            ("refresh_token", refreshToken), ("access_token", accessToken), ("id_token", idToken), ("device_code", deviceCode),
        ]
        // A new password arrives only by its name.
        _ = server.send("POST", tokenPath, headers: [formType], body: Self.form([("new_password", newPassword)]))
        _ = server.send("POST", tokenPath, headers: [("Content-Type", "application/json")], body: #"{"newPassword": "\#(newPassword)x", "client_secret": 123456789, "secrets": ["\#(newPassword)y"]}"#)
        for (name, value) in secrets {
            let encoded = FormCoding.encodeComponent(value)
            _ = server.send("POST", tokenPath, headers: [formType], body: Self.form([(name, value), ("grant_type", "password")]))
            _ = server.send("POST", tokenPath, headers: [formType], body: Self.form([("note", value)]))
            _ = server.send("POST", tokenPath, headers: [("Content-Type", "text/plain")], body: "\(name)=\(value)")
            _ = server.send("POST", tokenPath, headers: [("Content-Type", "text/plain")], body: "please ignore: \(value)")
            _ = server.send("POST", tokenPath, headers: [("Content-Type", "application/json")], body: #"{"note": "\#(value)", "nested": {"\#(name)": "\#(value)"}}"#)
            _ = server.send("GET", "/organizations/oauth2/v2.0/authorize?x=\(encoded)&\(encoded)")
            _ = server.send("GET", "/v1.0/users/\(encoded)", headers: [("Referer", "https://app.example/cb?code=\(encoded)&other=\(encoded)"), ("Cookie", "c=\(encoded)")])
            _ = server.send("GET", "/v1.0/me", headers: [("Authorization", "Bearer \(value)")])
            _ = server.send("POST", tokenPath, headers: [formType, ("Authorization", "Basic " + Data("\(Self.webApp):\(encoded)".utf8).base64EncodedString())],
                            body: Self.form([("grant_type", "client_credentials"), ("scope", "https://graph.microsoft.com/.default")]))
        }
        let journal = String(decoding: server.send("GET", "/_fakeentra/journal?limit=1000").body, as: UTF8.self)
        let har = String(decoding: server.send("GET", "/_fakeentra/journal?format=har").body, as: UTF8.self)
        let log = server.accessLog.joined(separator: "\n")
        #expect(journal.contains("\"count\":"), "the journal answered")
        #expect(har.contains("\"entries\""), "the HAR export answered")
        for (name, value) in secrets + [("new_password", newPassword), ("newPassword", newPassword + "x"), ("secrets", newPassword + "y")] {
            // The access log cannot know a password: one written into a URL path stays there (documented).
            let places = [("journal", journal), ("HAR", har)] + (name.lowercased().contains("password") ? [] : [("access log", log)])
            for (where_, text) in places {
                #expect(!text.contains(value), "\(name) found in the \(where_)")
                #expect(!text.contains(FormCoding.encodeComponent(value)), "\(name) (percent-encoded) found in the \(where_)")
            }
        }
        #expect(!journal.contains("123456789"), "a number under a secret's name")
    }

    @Test func nativeAuthenticationCodesAreRedacted() throws {
        var server = try Server()
        let formType = ("Content-Type", "application/x-www-form-urlencoded")
        // A wrong guess and a second factor's code alike: each is a one-time code a reader must not see.
        _ = server.send("POST", "/woodgrove.onmicrosoft.com/signup/v1.0/continue", headers: [formType],
                        body: Self.form([("client_id", Self.webApp), ("grant_type", "oob"), ("oob", "73914822"), ("continuation_token", "ct")]))
        _ = server.send("POST", "/woodgrove.onmicrosoft.com/oauth2/v2.0/token", headers: [formType],
                        body: Self.form([("client_id", Self.webApp), ("grant_type", "mfa_oob"), ("mfa_oob", "51806637")]))
        let journal = String(decoding: server.send("GET", "/_fakeentra/journal?limit=1000").body, as: UTF8.self)
        let har = String(decoding: server.send("GET", "/_fakeentra/journal?format=har").body, as: UTF8.self)
        #expect(journal.contains("signup/v1.0/continue"), "the journal kept the request")
        for code in ["73914822", "51806637"] {
            #expect(!journal.contains(code) && !har.contains(code), "the code \(code) is in the journal or its HAR")
        }
    }

    @Test func namesAndShapesAreRecognised() {
        for name in ["new_password", "NewPassword", "client-secret", "subject_token", "x_refresh_token", "client_assertion", "pwd", "user_code", "oob", "mfa_oob"] {
            #expect(Redaction.isSensitive(name), "\(name)")
        }
        for name in ["token_type", "expires_in", "scope", "state", "code_challenge", "tokensValidFrom", "displayName"] {
            #expect(!Redaction.isSensitive(name), "\(name)")
        }
        #expect(SecretShape.isJWT("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."))
        #expect(!SecretShape.isJWT("eyJhbGciOiJub25lIn0"))
        #expect(Redaction.scrub("text eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig end", memory: nil).hasPrefix("text [redacted "))
        let memory = SecretMemory()
        memory.learn("InvalidAuthenticationToken", name: "code")
        #expect(Redaction.scrub("InvalidAuthenticationToken", memory: memory) == "InvalidAuthenticationToken", "a word is not a code")
    }
}
