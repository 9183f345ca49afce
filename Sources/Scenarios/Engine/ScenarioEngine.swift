import EntraCrypto
import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform
package import LocatedJSON
import Synchronization

package struct ScenarioEngineOptions: Sendable {
    /// When set, the control API requires `Authorization: Bearer <secret>` (from any address);
    /// when nil it answers loopback clients only.
    package var controlSecret: String?
    /// Binding clocks stand still unless advanced (deterministic tests); otherwise they follow real time.
    package var frozenClocks: Bool
    /// The most bindings alive at once. Each is a world (directory, state, clock) and requests are
    /// matched against the live ones, so an unbounded number (a test suite that binds and never
    /// unbinds) would grow memory and every request's cost without limit.
    package var maxBindings: Int

    package static let defaultMaxBindings = 10_000

    package init(controlSecret: String? = nil, frozenClocks: Bool = false, maxBindings: Int = defaultMaxBindings) {
        self.controlSecret = controlSecret
        self.frozenClocks = frozenClocks
        self.maxBindings = maxBindings
    }
}

package struct ScenarioEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: Int
    package var code: String
    package var message: String
    /// Located problems of a refused body (`file:line:column`), rendered as the error's `problems`.
    package var problems: [JSONProblem] = []

    package init(status: Int, code: String, message: String, problems: [JSONProblem] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.problems = problems
    }

    package var description: String { message }

    package static func badRequest(_ message: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 400, code: "bad_request", message: message)
    }

    package static func unknownScenario(_ name: String, known: [String]) -> ScenarioEngineError {
        ScenarioEngineError(status: 404, code: "unknown_scenario", message: "no scenario named \"\(name)\" (loaded: \(known.joined(separator: ", ")))")
    }
    package static func unknownBinding(_ id: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 404, code: "unknown_binding", message: "no binding with id \"\(id)\"")
    }
    package static func conflict(_ target: BindingTarget, existing: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 409, code: "binding_conflict", message: "\(target) is already bound (binding \(existing)); delete it first")
    }
    package static func tooManyBindings(_ limit: Int) -> ScenarioEngineError {
        ScenarioEngineError(status: 429, code: "too_many_bindings",
                            message: "\(limit) bindings are alive, the most this server keeps; delete finished ones (DELETE /_fakeentra/bindings/{id}) or reset (POST /_fakeentra/reset)")
    }
    package static func unknownTenant(_ name: String) -> ScenarioEngineError {
        ScenarioEngineError(status: 422, code: "unknown_tenant", message: "the alias must stand for a tenant of the directory; \"\(name)\" is not one")
    }
}

/// A binding as the control API and the CLI show it.
package struct BindingInfo: Sendable, Equatable {
    package var id: String
    package var scenario: String
    package var target: BindingTarget
}

/// Runs scenarios: picks the world a request belongs to, evaluates its rules, and lets the world's
/// services answer under the rules' directives (a rule's answer among them, which the service renders).
package final class ScenarioEngine: Sendable {
    struct Binding {
        var info: BindingInfo
        var world: ScenarioWorld
        var blueprint: WorldBlueprint
    }

    struct State {
        /// The library is read on first use: validating the shipped files compiles the schema's regular
        /// expressions (ICU), which an idle server that never binds a scenario need not page in.
        var loadLibrary: (@Sendable () -> ScenarioLibrary)?
        var loadedLibrary: ScenarioLibrary?
        var library: ScenarioLibrary {
            mutating get {
                if let loadedLibrary { return loadedLibrary }
                let loaded = loadLibrary?() ?? ScenarioLibrary()
                loadedLibrary = loaded
                loadLibrary = nil
                return loaded
            }
            set { loadedLibrary = newValue; loadLibrary = nil }
        }
        var defaultWorld: ScenarioWorld
        var bindings: [Binding] = []
        /// `bindings` by id and target: `bind` adds to it, `unbind` rebuilds it.
        var index = BindingIndex()
        var nextID = 1

        /// A binding's world by id, through the index.
        func world(id: String) -> ScenarioWorld? { index.position[id].map { bindings[$0].world } }
        /// Where a request no binding claims goes: the server binding's world (`--scenario NAME`), else the default one.
        var unboundWorld: ScenarioWorld { index.server.flatMap { world(id: $0) } ?? defaultWorld }
        /// Access-token signature → world id, so Graph calls reach the world that minted the token.
        var tokenOwners: [String: String] = [:]
        var tokenOrder: [String] = []
    }

    package let base: IdentityService
    package let options: ScenarioEngineOptions
    /// A world's services over its identity service: the default world's and every binding's.
    let makeRouter: @Sendable (IdentityService) -> WorldRouter
    /// The default world's services, kept across resets (they hold nothing a reset restores), and read
    /// by event loops without the engine's lock.
    let baseRouter: WorldRouter
    let baseStart: (directory: Directory, key: SigningCredential)
    let state: Mutex<State>
    /// `state.bindings.count`, stored under the lock by whatever changes the bindings.
    private let bindingCount = Atomic<Int>(0)
    /// The key the next `rollSigningKey` signs with, made ahead on its own thread once a scenario that rolls is bound.
    package let spareKey = SpareSigningKey()
    /// Which bound world issued each live grant handle.
    let handleOwners = HandleOwners()

    /// `library` is evaluated when a scenario is first needed (a binding, a listing, a file loaded);
    /// `worlds` makes a world's services over its identity service.
    package init(service: IdentityService, library: @autoclosure @escaping @Sendable () -> ScenarioLibrary, options: ScenarioEngineOptions = .init(),
                worlds makeRouter: @escaping @Sendable (IdentityService) -> WorldRouter) {
        base = service
        self.options = options
        self.makeRouter = makeRouter
        // Made before the start state is taken: a service's handler may add to the directory (B2C's tenant).
        baseRouter = makeRouter(service)
        baseStart = (service.currentDirectory, service.keys.current)
        let defaultWorld = ScenarioWorld(id: "default", scenario: nil, target: nil, service: service, router: baseRouter)
        state = Mutex(State(loadLibrary: library, defaultWorld: defaultWorld))
    }

    // MARK: Library

    package var library: ScenarioLibrary { state.withLock { $0.library } }

    /// Validates and adds a scenario file; nothing changes when it has problems.
    package func load(file bytes: [UInt8], name: String) -> Result<Scenario, JSONProblemsReport> {
        switch ScenarioLibrary.parse(bytes, file: name, baseDirectory: base.currentDirectory) {
        case .success(let scenario):
            state.withLock { $0.library.add(scenario) }
            return .success(scenario)
        case .failure(let problems):
            return .failure(JSONProblemsReport(problems: problems.problems))
        }
    }

    // MARK: Bindings

    package var bindings: [BindingInfo] { state.withLock { $0.bindings.map(\.info) } }

    /// False while no scenario is bound: every request is then answered by the default world's platform
    /// alone, with no rule that could delay it, roll a key or otherwise make its cost unbounded. Read
    /// without the engine's lock, which a bind or reset holds while it builds a world: event loops ask.
    package var hasBindings: Bool { bindingCount.load(ordering: .acquiring) > 0 }

    @discardableResult
    package func bind(scenario name: String, to target: BindingTarget) throws(ScenarioEngineError) -> BindingInfo {
        let now = base.clock.now()
        let result: Result<BindingInfo, ScenarioEngineError> = state.withLock { s in
            let library = s.library
            guard let scenario = library[name] else { return .failure(.unknownScenario(name, known: library.names)) }
            if let existing = s.index.bound(target) {
                return .failure(.conflict(target, existing: existing))
            }
            guard s.bindings.count < options.maxBindings else { return .failure(.tooManyBindings(options.maxBindings)) }
            let directory = WorldBlueprint.directory(base: base.currentDirectory, scenario: scenario, target: target)
            if case .tenantAlias(_, let tenant) = target, directory.tenant(matching: tenant) == nil {
                return .failure(.unknownTenant(tenant))
            }
            let blueprint = WorldBlueprint(directory: directory, clockOffset: scenario.clockOffset, frozen: options.frozenClocks,
                                           signingKey: baseStart.key, options: base.options)
            let id = "b\(s.nextID)"
            s.nextID += 1
            let service = blueprint.makeService(now: now)
            let world = ScenarioWorld(id: id, scenario: scenario, target: target, service: service, router: makeRouter(service))
            let info = BindingInfo(id: id, scenario: name, target: target)
            s.bindings.append(Binding(info: info, world: world, blueprint: blueprint))
            s.index.add(info, at: s.bindings.count - 1)
            handleOwners.watch(world)
            bindingCount.store(s.bindings.count, ordering: .releasing)
            return .success(info)
        }
        let info = try result.get()
        if library[name]?.rollsSigningKey == true { spareKey.prepare() }
        return info
    }

    @discardableResult
    package func unbind(id: String) -> Bool {
        state.withLock { s in
            let before = s.bindings.count
            s.bindings.removeAll { $0.info.id == id }
            guard s.bindings.count != before else { return false }
            s.index = BindingIndex(s.bindings.map(\.info))
            handleOwners.forget(world: id)
            bindingCount.store(s.bindings.count, ordering: .releasing)
            s.tokenOwners = s.tokenOwners.filter { $0.value != id }
            s.tokenOrder.removeAll { s.tokenOwners[$0] == nil }
            return s.bindings.count != before
        }
    }

    /// The world of a binding, or for nil the world unbound requests go to: the server binding's
    /// when there is one (`--scenario NAME`), else the default world.
    package func world(binding id: String? = nil) -> ScenarioWorld? {
        state.withLock { s in
            guard let id else { return s.unboundWorld }
            if id == "default" { return s.defaultWorld }
            return s.world(id: id)
        }
    }

    /// The world a request of `clientID` for the user `userName` goes to, as the engine routes one: a
    /// binding of the client, else of the user, else the world unbound requests go to.
    package func world(servingClient clientID: String?, user userName: String?) -> ScenarioWorld? {
        state.withLock { s in
            let bound = clientID.flatMap { s.index.client($0) } ?? userName.flatMap { s.index.user(among: [$0]) }
            return bound.flatMap { s.world(id: $0) } ?? s.unboundWorld
        }
    }

    /// Restores the start state: of one binding, or of every world (the default one included) when nil.
    package func reset(binding id: String? = nil) throws(ScenarioEngineError) {
        let now = base.clock.now()
        let found: Bool = state.withLock { s in
            if id == nil || id == "default" { resetDefaultWorld(&s) }
            var found = id == nil || id == "default"
            for index in s.bindings.indices where id == nil || s.bindings[index].info.id == id {
                let binding = s.bindings[index]
                let service = binding.blueprint.makeService(now: now)
                let fresh = ScenarioWorld(id: binding.info.id, scenario: binding.world.scenario, target: binding.info.target,
                                          service: service, router: makeRouter(service))
                s.bindings[index].world = fresh
                handleOwners.forget(world: binding.info.id)
                handleOwners.watch(fresh)
                found = true
            }
            let liveIDs = Set(s.bindings.map(\.info.id))
            s.tokenOwners = s.tokenOwners.filter { liveIDs.contains($0.value) && !(id == nil || $0.value == id) }
            s.tokenOrder.removeAll { s.tokenOwners[$0] == nil }
            return found
        }
        if !found, let id { throw .unknownBinding(id) }
    }

    private func resetDefaultWorld(_ s: inout State) {
        base.forgetGrantsAndSessions()
        base.directory.withLock { $0 = baseStart.directory }
        (base.clock as? VirtualClock)?.resetOffset()
        base.keys.roll(to: baseStart.key)
        s.defaultWorld = ScenarioWorld(id: "default", scenario: nil, target: nil, service: base, router: baseRouter)
    }
}

/// The problems of a rejected scenario file.
package struct JSONProblemsReport: Error, Sendable {
    package var problems: [JSONProblem]
}
