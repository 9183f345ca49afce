// The control API's client and its types (FakeEntraControl) come with FakeEntraTesting: a test that
// imports FakeEntraTesting uses them as before, an iOS test target imports FakeEntraControl alone.
@_exported public import FakeEntraControl
public import Foundation
import HeadlessBrowser

/// Mints, bindings, the clock and the outbox, through the control API (`/_fakeentra/…`): FakeEntraControl's
/// calls over this client, in process or over the socket.
extension FakeEntraClient: FakeEntraControlTransport {
    /// The control API's calls, with the configured secret as their bearer.
    public var control: FakeEntraControl { FakeEntraControl(transport: self, controlSecret: controlSecret) }

    public func exchange(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) async throws -> (status: Int, body: [UInt8]) {
        var request = try browserRequest(FakeEntraMethod(method), path, headers: headers)
        request.body = body
        let response = FakeEntraResponse(try await send(request))
        return (response.status, response.body)
    }

    /// Mints a token for `user` (nil: an app-only token) and `clientID` with `scopes`, signed with the
    /// server's key; no sign-in, no consent. The scopes name the audience (`api://orders/Orders.Read`).
    ///
    ///     let token = try await client.mintToken(user: "adele.vance@contoso.onmicrosoft.com", scopes: ["api://orders/Orders.Read"])
    public func mintToken(user: String? = nil, clientID: String? = nil, scopes: [String] = [], roles: [String] = [],
                          tenant: String? = nil, audience: String? = nil, lifetime: TimeInterval? = nil, kind: FakeEntraTokenKind = .access,
                          claims: [String: any Sendable] = [:], in binding: FakeEntraBinding? = nil) async throws -> FakeEntraToken {
        try await control.mintToken(user: user, clientID: clientID, scopes: scopes, roles: roles, tenant: tenant, audience: audience,
                                    lifetime: lifetime, kind: kind, claims: claims, in: binding)
    }

    /// Activates the shipped (or a configured folder's) scenario `scenario` for `target`; its world is
    /// isolated until `unbind`.
    @discardableResult
    public func bind(scenario: String, to target: FakeEntraBindingTarget) async throws -> FakeEntraBinding {
        try await control.bind(scenario: scenario, to: target)
    }

    /// Ends a binding; its requests go to the default world again.
    public func unbind(_ binding: FakeEntraBinding) async throws {
        try await control.unbind(binding)
    }

    /// Moves the virtual clock of the default world (or of `binding`'s) forward by `seconds`; returns
    /// the new now. Tokens, codes and sessions expire as if that time had passed.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval, in binding: FakeEntraBinding? = nil) async throws -> Date {
        try await control.advanceClock(by: seconds, in: binding)
    }

    /// The messages FakeEntra sent to `address`, an email address or a phone number (External ID's one-time
    /// codes by email or text message), oldest first: the code a person would read is `.last?.code`.
    public func outbox(for address: String, in binding: FakeEntraBinding? = nil) async throws -> [FakeEntraEmail] {
        try await control.outbox(for: address, in: binding)
    }

    /// The virtual clock's now in the default world (or `binding`'s).
    public func now(in binding: FakeEntraBinding? = nil) async throws -> Date {
        try await control.now(in: binding)
    }
}
