import EntraCrypto
package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
import Synchronization

/// The last layer of the stack: picks the world a request belongs to (the default one or a binding's),
/// evaluates that world's rules, and answers through the world's services under the rules' directives
/// (a dropped connection, which no service gives, excepted).
package struct ScenarioLayer: ExchangeLayer {
    package let engine: ScenarioEngine

    package init(engine: ScenarioEngine) { self.engine = engine }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        engine.answer(request, context: context)
    }

    /// A bound scenario's rules can delay an answer or make a key on the spot: while one is bound, every
    /// request goes to a worker. Without, the default world's services say.
    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool? {
        guard !engine.hasBindings else { return false }
        return engine.baseRouter.answersOnLoop(request, route: route)
    }
}

/// The cookie that keeps a browser's follow-up pages (sign-in, consent) in the world its /authorize went to.
let bindingCookieName = "fakeentra_binding"

extension ScenarioEngine {
    /// Answers one request that is not for the control API.
    func answer(_ request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        // The facts are read by bindings, by rules and for an /authorize's binding cookie: the default
        // world without rules answers every other request without them.
        var facts: RequestFacts?
        let world: ScenarioWorld
        if hasBindings {
            let unresolved = RequestFacts(request, route: context.route)
            world = selectWorld(for: unresolved, request: request)
            facts = unresolved
        } else {
            world = state.withLock { $0.defaultWorld }
        }
        let service = world.service
        if world.id != "default" { context.receipt.update { $0.world = world.id } }
        if world.hasRules || context.route.ruleEndpoint == .authorize {
            var resolved = facts.take() ?? RequestFacts(request, route: context.route)
            // What the state says about the request: who owns a refresh token, the /authorize a page continues.
            let known = service.grantFacts(flow: resolved.parameters[IdentityService.flowFieldName], handles: resolved.grantHandles)
            resolved.resolve(known, directory: service.currentDirectory)
            facts = resolved
        }
        let now = service.clock.now()
        // A world with rules has its facts (read just above).
        var outcome = if world.hasRules, let facts { world.book.withLock { $0.evaluate(facts, now: now, start: world.startedAt) } } else { RuleOutcome() }
        if let scenario = world.scenario?.name, !outcome.firedRules.isEmpty {
            context.receipt.update { $0.rules += outcome.firedRules.map { Receipt.FiredRule(scenario: scenario, index: $0) } }
        }
        let flowField = IdentityService.flowFieldName
        let flowID = if let facts { facts.parameters[flowField] } else { RequestFacts.parameter(flowField, of: request) }
        if let flowID, let started = world.flowDirectives.withLock({ $0[flowID] }) {
            outcome.directives = started.merged(with: outcome.directives)
        }
        // A key roll takes effect for this answer (its token carries the new kid); time passes once the
        // request has been answered ("after the first Graph call the clock jumps"), so the answer
        // itself is still given at the time the client sent the request.
        let (clockJumps, otherChanges) = outcome.worldChanges.partitioned { if case .advanceClock = $0 { true } else { false } }
        for change in otherChanges { apply(change, to: world) }
        defer { for change in clockJumps { apply(change, to: world) } }

        var response: HTTPResponse
        if case .dropConnection? = outcome.answer {
            response = HTTPResponse(status: .internalServerError, directives: TransportDirectives(dropConnection: true))
        } else {
            var worldContext = context
            worldContext.directives = outcome.directives
            worldContext.directives.answer = outcome.answer?.scriptedAnswer
            if case .tenantAlias(let alias, _)? = world.target { worldContext.directives.authorityAlias = alias }
            response = world.router.respond(to: request, context: worldContext)
            rememberTokens(of: context.receipt, world: world)
            rememberFlow(of: context.receipt, directives: outcome.directives, continuing: flowID, world: world)
        }
        if outcome.delayMilliseconds > 0 {
            response.directives.delay = (response.directives.delay ?? .zero) + .milliseconds(outcome.delayMilliseconds)
        }
        if let facts { setAffinityCookie(&response, request: request, facts: facts, world: world, context: context.connection) }
        return response
    }

    private func apply(_ change: RuleAction, to world: ScenarioWorld) {
        switch change {
        case .advanceClock(let seconds): world.virtualClock?.advance(by: seconds)
        case .rollSigningKey(let grace):
            let now = world.service.clock.now()
            guard let credential = try? spareKey.take() else { break }
            if let grace { world.service.keys.roll(to: credential, keepingPreviousFor: grace, now: now) } else { world.service.keys.roll(to: credential) }
        default: break
        }
    }

    /// Binding selection, most specific first: tenant alias in the path; a refresh token, code,
    /// device code or sign-in flow a world issued (the default world included); a bearer token a world minted; the client id; the browser's
    /// binding cookie (pages without a client id); the user; the server binding; the default world.
    func selectWorld(for facts: RequestFacts, request: HTTPRequest) -> ScenarioWorld {
        // Who issued a presented handle is looked up outside the engine's lock (its index has its own).
        let handleOwner = facts.grantHandles.isEmpty ? nil : handleOwners.owner(of: facts.grantHandles)
        return state.withLock { s in
            // Every rule below picks a binding or, failing all, the default world; each is one lookup.
            if s.bindings.isEmpty { return s.defaultWorld }
            if let segment = facts.tenantSegment, let id = s.index.alias(segment), let world = s.world(id: id) { return world }
            if !facts.grantHandles.isEmpty {
                if let handleOwner, let world = s.world(id: handleOwner) { return world }
                if s.defaultWorld.service.issuedAny(of: facts.grantHandles) { return s.defaultWorld }
            }
            if let token = facts.bearerToken, !s.tokenOwners.isEmpty, let owner = s.tokenOwners[Self.tokenKey(token)], let world = s.world(id: owner) {
                return world
            }
            if let client = facts.clientID, let id = s.index.client(client), let world = s.world(id: id) { return world }
            if facts.clientID == nil, let cookie = request.cookies[bindingCookieName], let world = s.world(id: cookie) { return world }
            if let id = s.index.user(among: facts.userNames), let world = s.world(id: id) { return world }
            if let id = s.index.server, let world = s.world(id: id) { return world }
            return s.defaultWorld
        }
    }

    /// The key a minted access token is remembered by: the receipt's id of it.
    static func tokenKey(_ token: String) -> String { Receipt.handleID(token) }

    /// Remembers which world minted the access tokens the receipt names (by their `handleID`).
    private func rememberTokens(of recorder: ReceiptRecorder, world: ScenarioWorld) {
        // Only bound worlds' tokens are remembered: the default world's answers build no list (nor copy
        // the receipt).
        guard world.id != "default" else { return }
        rememberOwner(world, ofTokenKeys: recorder.current.tokens.filter { $0.kind == .access }.map(\.id))
    }

    /// Remembers that `world` minted `token` outside any request to it (the control API's and the console's
    /// mint), so a Graph call carrying it is answered by that world: its clock, keys and rules.
    package func rememberMinted(_ token: String, world: ScenarioWorld) {
        guard world.id != "default" else { return }
        rememberOwner(world, ofTokenKeys: [Self.tokenKey(token)])
    }

    private func rememberOwner(_ world: ScenarioWorld, ofTokenKeys keys: [String]) {
        guard !keys.isEmpty else { return }
        state.withLock { s in
            for key in keys where s.tokenOwners.updateValue(world.id, forKey: key) == nil { s.tokenOrder.append(key) }
            // Bounded: a long run keeps the most recent tokens only.
            if s.tokenOrder.count > 20_000 {
                for old in s.tokenOrder.prefix(5_000) { s.tokenOwners[old] = nil }
                s.tokenOrder.removeFirst(5_000)
            }
        }
    }

    /// A rule that fired on /authorize (say `requireConsent`) must still hold on the pages of that sign-in,
    /// which come later and carry only the flow id: remember its directives under the id the page hands out.
    private func rememberFlow(of recorder: ReceiptRecorder, directives: ScenarioDirectives, continuing flowID: String?, world: ScenarioWorld) {
        guard !directives.isEmpty, let id = recorder.current.flow?.id else { return }
        let live = world.service.pendingSignInIDs
        world.flowDirectives.withLock { flows in
            flows[id] = directives
            if let flowID, flowID != id { flows[flowID] = nil }
            flows = flows.filter { live.contains($0.key) }
        }
    }

    private func setAffinityCookie(_ response: inout HTTPResponse, request: HTTPRequest, facts: RequestFacts, world: ScenarioWorld, context: ConnectionFacts) {
        guard facts.kind == .authorize, facts.clientID != nil else { return }
        if world.id == "default" || world.target == .server {
            if request.cookies[bindingCookieName] != nil {
                response.headers.add("Set-Cookie", CookieCoding.setCookie(name: bindingCookieName, value: "", maxAge: 0, secure: context.isSecure))
            }
        } else {
            response.headers.add("Set-Cookie", CookieCoding.setCookie(name: bindingCookieName, value: world.id, secure: context.isSecure))
        }
    }
}

extension Array {
    /// The elements that satisfy `belongs`, then the others, each in their original order.
    fileprivate func partitioned(_ belongs: (Element) -> Bool) -> ([Element], [Element]) {
        var yes: [Element] = [], no: [Element] = []
        for element in self { if belongs(element) { yes.append(element) } else { no.append(element) } }
        return (yes, no)
    }
}
