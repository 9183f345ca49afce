import FakeEntraControl
import FakeEntraTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The control API's client as an iOS test target uses it: URLSession to a server on plain HTTP (the
/// Simulator's way to the Mac's loopback), with the server's control secret.
@Suite struct URLSessionControlTests {
    @Test func bindsMovesTheClockReadsTheOutboxAndTheJournalAndMints() async throws {
        var configuration = FakeEntraConfiguration(listener: .plainHTTP, frozenAt: Date(timeIntervalSince1970: 1_900_000_000))
        configuration.controlSecret = "control-test-secret"
        let server = try await FakeEntraServer.start(configuration)
        let baseURL = try #require(URL(string: try server.client(.live).baseURL))
        #expect(baseURL.scheme == "http")
        let control = FakeEntraControl(baseURL: baseURL, controlSecret: "control-test-secret")

        let clientID = UUID().uuidString.lowercased()
        let binding = try await control.bind(scenario: "mfa-required", to: .client(clientID))
        #expect(binding.scenario == "mfa-required" && !binding.id.isEmpty)
        // The binding's clock runs on between the two calls, by no more than the time they took; times travel
        // in whole seconds.
        let asked = ContinuousClock.now
        let before = try await control.now(in: binding)
        let after = try await control.advanceClock(by: 3600, in: binding)
        let took = Double((ContinuousClock.now - asked).components.seconds) + 1
        let moved = after.timeIntervalSince(before)
        #expect(moved >= 3599 && moved <= 3600 + took, "a binding's world keeps its own clock: moved \(moved) s")

        let token = try await control.mintToken(user: "adele.vance@contoso.onmicrosoft.com", scopes: ["User.Read"])
        #expect(token.claims["upn"] as? String == "adele.vance@contoso.onmicrosoft.com")
        let me = try await FakeEntraURLSessionTransport(baseURL: baseURL).exchange("GET", "/v1.0/me", headers: [("Authorization", "Bearer \(token.token)")], body: [])
        #expect(me.status == 200)
        #expect(try await control.journal(path: "/v1.0/me").last?.status == 200)
        #expect(try await control.outbox(for: "nobody@woodgrove.example").isEmpty)
        try await control.unbind(binding)

        // Without the secret the control API refuses, in its words.
        await #expect(throws: FakeEntraControlError.self) {
            try await FakeEntraControl(baseURL: baseURL).bind(scenario: "mfa-required", to: .client(clientID))
        }
        await server.shutdown()
    }
}

/// What lets an iOS target link the product: it depends on LocatedJSON alone, which depends on the
/// regular-expression engine alone, which depends on nothing.
@Suite struct FakeEntraControlDependenciesTests {
    @Test func linksNoOpenSSLAndNoSQLite() throws {
        let manifest = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "FakeEntraControl", dependencies: ["LocatedJSON"]"#))
        #expect(manifest.contains(#".target(name: "LocatedJSON", dependencies: ["LinearRegex"], swiftSettings: swiftSettings)"#))
        #expect(manifest.contains(#".target(name: "LinearRegex", swiftSettings: swiftSettings)"#))
    }
}
