import ExchangeKernel
package import FoundationGaps
package import IdentityPlatform
package import Scenarios
import Synchronization

/// What the control plane can do, as typed commands: the control API's JSON routes and the console's
/// forms both call these, so a change made from either passes the same checks.
package struct ControlCommands: Sendable {
    package let engine: ScenarioEngine
    /// Every token minted here is noted, so the console can decode it wherever it shows up next.
    package let ledger: TokenLedger

    package init(engine: ScenarioEngine, ledger: TokenLedger) {
        self.engine = engine
        self.ledger = ledger
    }

    /// The world of `binding`: "default", a binding id, or nil for the world unbound requests go to.
    package func world(binding: String?) throws(ScenarioEngineError) -> ScenarioWorld {
        guard let world = engine.world(binding: binding) else { throw .unknownBinding(binding ?? "") }
        return world
    }

    /// The world a sign-in of `clientID` for `user` goes to (`ScenarioEngine.world(servingClient:user:)`).
    package func world(servingClient clientID: String?, user: String?) throws(ScenarioEngineError) -> ScenarioWorld {
        guard let world = engine.world(servingClient: clientID, user: user) else { throw .unknownBinding("") }
        return world
    }

    @discardableResult
    package func bind(scenario: String, to target: BindingTarget) throws(ScenarioEngineError) -> BindingInfo {
        try engine.bind(scenario: scenario, to: target)
    }

    package func unbind(id: String) throws(ScenarioEngineError) {
        guard engine.unbind(id: id) else { throw .unknownBinding(id) }
    }

    /// One binding's world, or every world when nil.
    package func reset(binding: String?) throws(ScenarioEngineError) {
        try engine.reset(binding: binding)
    }

    /// Moves the virtual clock of `binding`'s world (nil: the world unbound requests go to).
    @discardableResult
    package func advanceClock(binding: String?, by seconds: TimeInterval) throws(ScenarioEngineError) -> ScenarioWorld {
        let world = try world(binding: binding)
        guard let clock = world.virtualClock else { throw ScenarioEngineError(status: 409, code: "fixed_clock", message: "this world's clock cannot be moved") }
        guard clock.advance(by: seconds) else { throw .clockOutOfRange(offset: clock.offset, seconds: seconds) }
        return world
    }

    /// The console's own public client ("Try it"): registered in the default world, with `redirectURI`
    /// added to it, as a developer registers an app's redirect URI before signing in with it.
    package static let consoleClientID = "f2e6b1c0-7a3d-4e59-9c84-5b1d0e7f3a26"

    /// In the default world and, when a scenario is bound to the whole server, in its world too: that is
    /// where the sign-in's requests go.
    package func registerConsoleApp(redirectURI: String) throws(ScenarioEngineError) {
        let defaultWorld = try world(binding: "default"), unbound = try world(binding: nil)
        for world in defaultWorld === unbound ? [defaultWorld] : [defaultWorld, unbound] {
            register(redirectURI: redirectURI, in: world)
        }
    }

    private func register(redirectURI: String, in world: ScenarioWorld) {
        world.service.directory.withLock { directory in
            if let index = directory.applications.firstIndex(where: { $0.clientID == Self.consoleClientID }) {
                if !directory.applications[index].redirectURIs.contains(redirectURI) { directory.applications[index].redirectURIs.append(redirectURI) }
            } else {
                directory.applications.append(Application(
                    clientID: Self.consoleClientID, displayName: "FakeEntra console (Try it)", redirectURIs: [redirectURI],
                    requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", scopes: ["User.Read"])]))
            }
        }
    }

    /// Mints in the world of `binding` (nil: the world unbound requests go to); a Graph call carrying the
    /// token is then answered by that world.
    package func mint(_ request: TokenMintRequest, binding: String?, origin: String) throws(TokenMintError) -> MintedToken {
        guard let world = engine.world(binding: binding) else {
            throw TokenMintError(reason: .unknownBinding, message: "no binding with id \"\(binding ?? "")\"")
        }
        let minted = try TokenIssuer(service: world.service, origin: origin, now: world.service.clock.now()).mint(request)
        ledger.record(minted.token)
        engine.rememberMinted(minted.token, world: world)
        return minted
    }
}
