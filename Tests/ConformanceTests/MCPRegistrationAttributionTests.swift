import Conformance
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Testing

/// A dynamic registration reaches no case's world: the MCP case counts one as its app's only while it is
/// the only MCP case running on the server.
@Suite struct MCPRegistrationAttributionTests {
    let app: FakeEntraApplication

    init() throws {
        app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
    }

    static let mcpCase = "mcp.entra-resource-and-registration"

    func startMCPCase() throws -> String {
        let run = try app.conformance.createRun(cases: "mcp.*").id
        _ = try app.conformance.start(run: run, case: Self.mcpCase, baseURL: "https://127.0.0.1:8443", mcpServer: "http://127.0.0.1:1/mcp")
        return run
    }

    func registrationVerdict(_ run: String) throws -> Verdict? {
        let outcome = StepOutcome(id: 1, step: .callMCP, observed: .answered, ok: false, error: .other,
                                  startedAt: Date().addingTimeInterval(-5), endedAt: Date().addingTimeInterval(1))
        let result = try app.conformance.finish(run: run, case: Self.mcpCase, outcomes: [outcome])
        return result.checks.first { $0.check == "no-dynamic-registration" }?.verdict
    }

    @Test func aRegistrationIsTheOnlyRunningCasesOwn() throws {
        let run = try startMCPCase()
        #expect(app.send("POST", "/register", body: #"{"client_name": "x"}"#).status.code == 404)
        #expect(try registrationVerdict(run) == .failed)
    }

    @Test func aRegistrationWhileTwoMCPCasesRunCannotBeAttributed() throws {
        let first = try startMCPCase(), second = try startMCPCase()
        #expect(app.send("POST", "/contoso.onmicrosoft.com/v2.0/register", body: #"{"client_name": "x"}"#).status.code == 404)
        #expect(try registrationVerdict(first) == .notTestable)
        #expect(try registrationVerdict(second) == .notTestable, "the first case's window stays known once it finished")
        // After both finished, a third case's registration is its own.
        let third = try startMCPCase()
        #expect(app.send("POST", "/register", body: "{}").status.code == 404)
        #expect(try registrationVerdict(third) == .failed)
    }

    /// A case started again is a new window: the first attempt's result does not end it early.
    @Test func aRestartedCaseKeepsItsOwnWindow() throws {
        let run = try startMCPCase()
        #expect(try registrationVerdict(run) == .passed)
        _ = try app.conformance.start(run: run, case: Self.mcpCase, baseURL: "https://127.0.0.1:8443", mcpServer: "http://127.0.0.1:1/mcp")
        let other = try startMCPCase()
        #expect(app.send("POST", "/register", body: "{}").status.code == 404)
        #expect(try registrationVerdict(other) == .notTestable, "the restarted case is running")
        #expect(try registrationVerdict(run) == .notTestable)
    }

    @Test func mcpServerIsRefusedForAnotherCase() throws {
        let run = try app.conformance.createRun(cases: "protocol.pkce-s256").id
        #expect(throws: ConformanceError.self) {
            try app.conformance.start(run: run, case: "protocol.pkce-s256", baseURL: "https://127.0.0.1:8443", mcpServer: "http://127.0.0.1:1/mcp")
        }
    }
}
