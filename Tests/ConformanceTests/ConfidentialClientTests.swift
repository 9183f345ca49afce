import Conformance
import ExchangeKernel
import Scenarios
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Testing

/// Runs for confidential clients: the cases they get, the credential each case makes and registers,
/// the certificate rollover, and the judging of the confidential cases.
@Suite struct ConfidentialClientTests {
    let app: FakeEntraApplication

    init() throws {
        app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
    }


    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func run(_ client: String, cases: String? = nil) throws -> String {
        let body = cases.map { #"{"client": "\#(client)", "cases": "\#($0)"}"# } ?? #"{"client": "\#(client)"}"#
        return try #require(try json(app.send("POST", "/_fakeentra/conformance/runs", body: body))["run"] as? String)
    }

    func start(_ run: String, _ caseID: String) throws -> CaseStart {
        let response = app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/\(caseID)/start")
        try #require(response.status.code == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return try ConformanceJSON.decoder().decode(CaseStart.self, from: Data(response.body))
    }

    /// An app-only token request for the case's client id: what the registration accepts, without a browser.
    func appToken(_ start: CaseStart, credential: String) -> HTTPResponse {
        app.send("POST", "/\(Directory.contosoTenantID)/oauth2/v2.0/token",
             body: "grant_type=client_credentials&client_id=\(start.clientID)&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default&" + credential, form: true)
    }

    func assertion(signedWith pem: String, for start: CaseStart) throws -> String {
        let signer = try SigningCredential(privateKey: RSAPrivateKey(pem: pem), certificate: X509Certificate(pem: pem))
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"aud":"https://127.0.0.1:8443/\#(Directory.contosoTenantID)/oauth2/v2.0/token","iss":"\#(start.clientID)","sub":"\#(start.clientID)","jti":"\#(UUID().uuidString)","nbf":\#(now),"exp":\#(now + 600)}"#
        let jwt = try JWS.signJWT(payloadJSON: Array(claims.utf8), credential: signer)
        return "client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=\(jwt)"
    }

    func errorCodes(_ response: HTTPResponse) throws -> [Int] { try json(response)["error_codes"] as? [Int] ?? [] }

    @Test func eachKindGetsTheCasesThatJudgeIt() {
        let publicCases = Catalogue.select(glob: nil, client: .publicClient).map(\.id)
        let secretCases = Catalogue.select(glob: nil, client: .secret).map(\.id)
        let certificateCases = Catalogue.select(glob: nil, client: .certificate).map(\.id)
        #expect(!publicCases.contains { $0.hasPrefix("confidential.") })
        #expect(secretCases.contains("confidential.secret-expired") && !secretCases.contains("confidential.certificate-rollover"))
        #expect(certificateCases.contains("confidential.certificate-rollover") && !certificateCases.contains("confidential.secret-invalid"))
        // Devices, B2C and External ID sign in as public clients; AADSTS7000218 never reaches a client that sends its credential.
        for confidential in [secretCases, certificateCases] {
            #expect(!confidential.contains { $0.hasPrefix("b2c.") || $0.hasPrefix("externalid.") || $0.hasPrefix("resilience.device-") || $0 == "errors.invalid-client" })
            #expect(confidential.contains("confidential.pkce-s256") && !confidential.contains("protocol.pkce-s256") && confidential.contains("graph.cae-claims-challenge"))
        }
        #expect(!certificateCases.contains("lifecycle.clock-skew"), "an assertion cannot be in date on a clock 15 minutes ahead")
    }

    @Test func aSecretCaseRegistersAConfidentialAppWithItsOwnSecret() throws {
        let run = try run("secret", cases: "confidential.*")
        let start = try start(run, "confidential.secret-expired")
        let secret = try #require(start.credential?.secret)
        #expect(start.client == .secret && secret.count == 40)
        let environment = start.environment(certificateAuthority: "/ca.pem", browser: "b", certificatePath: "/unused.pem")
        #expect(environment["FAKEENTRA_CLIENT_KIND"] == "secret" && environment["FAKEENTRA_CLIENT_SECRET"] == secret)
        #expect(environment["FAKEENTRA_CLIENT_CERTIFICATE"] == nil)

        #expect(appToken(start, credential: "client_secret=\(secret)").status.code == 200)
        let wrong = appToken(start, credential: "client_secret=not-the-secret")
        #expect(wrong.status.code == 401)
        #expect(try errorCodes(wrong) == [7000215])
        // The secret expires a day after the start, on the case's clock.
        let registered = app.engine.world(binding: start.binding)?.service.currentDirectory.application(clientID: start.clientID)
        let expiry = try #require(registered?.secrets.first?.expiresAt)
        #expect(abs(expiry.timeIntervalSinceNow - 86400) < 60 && registered?.isPublicClient == false)
        #expect(try self.start(run, "confidential.secret-invalid").credential?.secret != secret, "every case has a secret of its own")
    }

    @Test func theCertificateRolloverTradesTheRegisteredCertificate() throws {
        let run = try run("certificate")
        let start = try start(run, "confidential.certificate-rollover")
        let credential = try #require(start.credential)
        let first = try #require(credential.certificate)
        let next = try #require(credential.nextCertificate)
        #expect(credential.rolloverAfterStep == 1 && first != next)
        #expect(start.environment(certificateAuthority: "/ca.pem", browser: "b", certificatePath: "/case.pem")["FAKEENTRA_CLIENT_CERTIFICATE"] == "/case.pem")

        #expect(appToken(start, credential: try assertion(signedWith: first, for: start)).status.code == 200)
        #expect(appToken(start, credential: try assertion(signedWith: next, for: start)).status.code == 401, "not registered before the rollover")
        #expect(app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/confidential.certificate-rollover/rollover").status.code == 200)
        let refused = appToken(start, credential: try assertion(signedWith: first, for: start))
        #expect(refused.status.code == 401)
        #expect(try errorCodes(refused) == [700027])
        #expect(appToken(start, credential: try assertion(signedWith: next, for: start)).status.code == 200)

        let plain = try self.start(run, "lifecycle.rotation")
        #expect(plain.credential?.nextCertificate == nil && plain.credential?.certificate != nil)
        let noRollover = app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/lifecycle.rotation/rollover")
        #expect(noRollover.status.code == 409)
    }

    /// The credential leaves with the case: the finished run keeps none of it, and the stderr tail the
    /// reports show has the secret and the key blanked out.
    @Test func aFinishedCaseKeepsNoCredential() throws {
        let run = try run("certificate")
        let start = try start(run, "confidential.certificate-rollover")
        let keyLine = try #require(start.credential?.certificate?.split(separator: "\n").dropFirst().first.map(String.init))
        let tail = #"{"outcomes": [], "stderrTail": "DEBUG key \#(keyLine) end"}"#
        let finished = app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/confidential.certificate-rollover/finish", body: tail)
        let result = try ConformanceJSON.decoder().decode(CaseResult.self, from: Data(finished.body))
        #expect(result.stderrTail == "DEBUG key [private key] end")
        #expect(app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/confidential.certificate-rollover/rollover").status.code == 409, "finished: nothing to roll")

        let secretRun = try self.run("secret")
        let secretStart = try self.start(secretRun, "confidential.secret-invalid")
        let secret = try #require(secretStart.credential?.secret)
        #expect(secretStart.withoutCredentials("client_secret=\(secret)&x") == "client_secret=[client secret]&x")
    }

    @Test func theEnvironmentNamesOnlyKnownVariables() throws {
        let start = try start(try run("certificate"), "confidential.certificate-rollover")
        var withEverything = start
        withEverything.secondUser = .init(username: "u", password: "p")
        withEverything.b2c = .init(authority: "a", resetAuthority: "r", knownAuthority: "k", scopes: [], username: "u", password: "p")
        withEverything.credential?.secret = "s"
        withEverything.outbox = "https://127.0.0.1/_fakeentra/outbox?clientId=c"
        withEverything.mcpServer = MCPServerSettings(url: "http://127.0.0.1:1/mcp", apiClientID: "a", issuer: "https://127.0.0.1/t/v2.0")
        let names = Set(withEverything.environment(certificateAuthority: "/ca.pem", browser: "b", certificatePath: "/c.pem").keys)
        #expect(names == CaseStart.variableNames, "a runner drops exactly what a case may set")
    }

    @Test func aRunRefusesWhatItCannotJudge() throws {
        let badKind = app.send("POST", "/_fakeentra/conformance/runs", body: #"{"client": "daemon"}"#)
        #expect(badKind.status.code == 422)
        #expect(app.send("POST", "/_fakeentra/conformance/runs", body: #"{"client": "secret", "cases": "b2c.*"}"#).status.code == 422, "no B2C case judges a confidential client")
        let run = try run("secret")
        let publicOnly = app.send("POST", "/_fakeentra/conformance/runs/\(run)/cases/resilience.device-slow-down/start")
        #expect(publicOnly.status.code == 422)
        #expect((try json(publicOnly)["error"] as? [String: Any])?["code"] as? String == "not_applicable")
        let publicRun = try #require(try json(app.send("POST", "/_fakeentra/conformance/runs"))["run"] as? String)
        #expect(try self.start(publicRun, "protocol.pkce-s256").credential == nil)
    }

    // MARK: judging

    /// A refused secret: reporting invalid_client and stopping passes; a new sign-in or a retry loop fails.
    @Test(arguments: [("confidential.secret-invalid", "AADSTS7000215"), ("confidential.secret-expired", "AADSTS7000222")])
    func aRefusedSecretIsReportedNotRetried(caseID: String, code: String) {
        var stops = Synthetic()
        stops.signedIn()
        stops.refresh(at: 1.5, status: 401, error: "invalid_client", errorCode: code)
        stops.reply(2, .getToken, from: 1.2, to: 2, ok: false, error: .invalidClient)
        stops.refresh(at: 2.5, status: 401, error: "invalid_client", errorCode: code)
        stops.reply(3, .getToken, from: 2.1, to: 3, ok: false, error: .invalidClient)
        stops.expectPassed(caseID)

        var signsInAgain = stops
        signsInAgain.authorize(at: 2.8)
        signsInAgain.expect(caseID, .failed, decidedBy: "no-new-sign-in")

        var loops = stops
        for attempt in 0..<3 { loops.refresh(at: 2.6 + Double(attempt) / 10, status: 401, error: "invalid_client", errorCode: code) }
        loops.expect(caseID, .failed, decidedBy: "no-retry-loop")

        var misreports = stops
        misreports.outcomes[1] = StepOutcome(id: 2, step: .getToken, observed: .answered, ok: false, error: .interactionRequired, startedAt: Synthetic.t0, endedAt: Synthetic.t0)
        misreports.expect(caseID, .failed, decidedBy: "reports-invalid-client")
    }

    @Test func aCertificateRolloverIsSurvivedByReloadingOnce() {
        var reloads = Synthetic()
        reloads.signedIn()
        reloads.refresh(at: 1.5, status: 401, error: "invalid_client", errorCode: "AADSTS700027")
        reloads.refresh(at: 1.6, issuing: "rt2")
        reloads.reply(2, .getToken, from: 1.2, to: 1.7)
        reloads.refresh(at: 2.5, presenting: "rt2", issuing: "rt3")
        reloads.reply(3, .getToken, from: 2.1, to: 2.6)
        reloads.expectPassed("confidential.certificate-rollover")

        var keepsOld = Synthetic()
        keepsOld.signedIn()
        keepsOld.refresh(at: 1.5, status: 401, error: "invalid_client", errorCode: "AADSTS700027")
        keepsOld.reply(2, .getToken, from: 1.2, to: 1.7, ok: false, error: .invalidClient)
        keepsOld.refresh(at: 2.5, status: 401, error: "invalid_client", errorCode: "AADSTS700027")
        keepsOld.reply(3, .getToken, from: 2.1, to: 2.6, ok: false, error: .invalidClient)
        keepsOld.expect("confidential.certificate-rollover", .failed, decidedBy: "reloads-certificate")

        var reloadsInALoop = keepsOld
        reloadsInALoop.refresh(at: 2.7, status: 401, error: "invalid_client", errorCode: "AADSTS700027")
        #expect(reloadsInALoop.check("confidential.certificate-rollover", "retries-once").verdict == .failed)
    }

    @Test func aDaemonReportsARefusedSecretOnce() {
        let caseID = "confidential.app-token-secret-refused"
        func appToken(_ journal: inout Synthetic, at seconds: Double) {
            journal.add(at: seconds, "POST", Synthetic.tenant + "/oauth2/v2.0/token", status: 401, kind: "token", form: ["grant_type": "client_credentials"],
                        answer: Receipt.Answer(error: "invalid_client", errorCodes: [7000215]), errorCode: "AADSTS7000215")
        }
        var reports = Synthetic()
        appToken(&reports, at: 0.1)
        reports.reply(1, .getAppToken, from: 0, to: 0.2, ok: false, error: .invalidClient)
        appToken(&reports, at: 0.3)
        reports.reply(2, .getAppToken, from: 0.25, to: 0.4, ok: false, error: .invalidClient)
        reports.expectPassed(caseID)

        var loops = reports
        for attempt in 0..<3 { appToken(&loops, at: 0.5 + Double(attempt) / 10) }
        loops.expect(caseID, .failed, decidedBy: "no-retry-loop")

        var misreports = reports
        misreports.outcomes[0].error = .serverError
        misreports.expect(caseID, .failed, decidedBy: "reports-invalid-client")
    }
}
