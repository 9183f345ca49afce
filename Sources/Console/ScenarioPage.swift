import ControlPlane
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import Scenarios

extension ConsolePage {
    /// Bound scenarios with unbind and reset, a form to bind one, and every world's virtual clock.
    func scenarios(alert: String?, status: HTTPStatus) -> HTTPResponse {
        let engine = console.engine
        let notice: HTML = request.query["done"].flatMap { Self.notices[$0] }.map { "<p class=\"notice\" role=\"status\" id=\"notice\">\($0)</p>" } ?? .empty
        let problem: HTML = alert.map { "<p class=\"alert\" role=\"alert\" id=\"actionError\">\($0)</p>" } ?? .empty
        let bindingRows = engine.bindings.map { info -> HTML in
            """
            <tr data-binding="\(info.id)"><td><code>\(info.id)</code></td><td>\(info.scenario)</td><td>\(info.target.description)</td>\
            <td>\(actionForm("reset", label: "Reset", fields: HTML.hidden("binding", info.id)))\
            \(actionForm("unbind", label: "Unbind", fields: HTML.hidden("binding", info.id), danger: true))</td></tr>
            """
        }
        let library = engine.library.scenarios.values.sorted { $0.name < $1.name }
        let scenarioOptions = library.map { s -> HTML in "<option value=\"\(s.name)\">\(s.name)</option>" }
        let libraryRows = library.map { s -> HTML in "<tr data-scenario=\"\(s.name)\"><td><code>\(s.name)</code></td><td>\(s.summary)</td><td>\(s.rules.count)</td></tr>" }
        let bindForm: HTML = """
        <form method="post" action="\(Self.base)/bind" class="stack" id="bind-form">\(csrfField)
        <label for="b-scenario">Scenario<select id="b-scenario" name="scenario" required>\(scenarioOptions)</select></label>
        <label for="b-target">For<select id="b-target" name="target">
        <option value="client">a client id</option><option value="user">a user</option><option value="alias">a tenant alias (alias=tenant)</option><option value="server">the whole server</option>
        </select></label>
        <label for="b-value">Client id, user or alias=tenant<input id="b-value" name="value" placeholder="e.g. 11111111-… or adele.vance@contoso.onmicrosoft.com"></label>
        <button type="submit" class="primary small" id="bind">Bind</button>
        </form>
        """
        let clockRows = console.worlds.map { world -> HTML in
            let label = world.id == "default" ? "default world" : "\(world.id) · \(world.scenario?.name ?? "")"
            let quick = [("+1 min", 60), ("+1 h", 3600), ("+1 day", 86400), ("+91 days", 91 * 86400)].map { text, seconds -> HTML in
                actionForm("clock", label: text, fields: HTML.hidden("binding", world.id) + HTML.hidden("seconds", String(seconds)))
            }
            return """
            <tr data-world="\(world.id)"><td>\(label)</td><td class="mono" data-clock="\(world.id)">\(ConsoleFormat.dateTime(world.service.clock.now()))</td>\
            <td class="mono">\(ConsoleFormat.offset(world.virtualClock?.offset ?? 0))</td><td>\(quick)\
            <form method="post" action="\(Self.base)/clock" class="inline">\(csrfField)\(HTML.hidden("binding", world.id))\
            <input name="seconds" type="number" step="any" aria-label="seconds to advance \(world.id)" placeholder="seconds" style="width:110px">\
            <button type="submit" class="small">Advance</button></form></td></tr>
            """
        }
        let content: HTML = """
        \(notice)\(problem)
        <section><h2 id="bindings">Bound scenarios</h2>
        <p class="muted">A binding gives a client, user, tenant alias or the whole server its own world (directory, codes, tokens, clock) running a scenario's rules. The same as <code>POST /_fakeentra/bindings</code>.</p>
        \(table("bindingTable", ["id", "scenario", "bound to", ""], bindingRows, empty: "No scenario is bound: every request gets the normal service."))
        \(bindForm)
        <details id="library"><summary>What each of the \(library.count) scenarios does</summary>
        \(table("libraryTable", ["scenario", "what it does", "rules"], libraryRows, empty: "No scenarios loaded."))</details>
        <p>\(actionForm("reset", label: "Reset every world", fields: .empty, danger: true)) <span class="muted">back to the start state: directory, sessions, codes, refresh tokens, clocks.</span></p>
        </section>
        <section><h2 id="clock">Virtual clock</h2>
        <p class="muted">Tokens, codes and sessions expire on the virtual clock. Advancing it is how tests reach an expiry without waiting.</p>
        \(table("clockTable", ["world", "now", "offset", "advance"], clockRows, empty: ""))
        </section>
        """
        return frame(.scenarios, heading: "Scenarios & clock", lede: "Script what the service answers, and move time.", content, status: status)
    }

    static let notices = [
        "bind": "Scenario bound.", "unbind": "Binding removed.", "reset": "Reset to the start state.", "clock": "Clock advanced.",
    ]

    func actionForm(_ action: String, label: String, fields: HTML, danger: Bool = false) -> HTML {
        """
        <form method="post" action="\(Self.base)/\(action)" class="inline">\(csrfField)\(fields)<button type="submit" class="small\(danger ? " danger" : "")" data-action="\(action)">\(label)</button></form>
        """
    }

    /// A console form post: checked against forgery, then run as the control plane's command, so the
    /// same checks apply as to a script's request; success goes back to the page (303).
    func action(_ name: String) -> HTTPResponse {
        let form = request.form
        guard console.formGuard.accepts(request, form: form) else {
            return scenarios(alert: "The form was refused: it did not come from this console page (reload the page and try again).", status: .forbidden)
        }
        let binding = form["binding"].flatMap { $0.isEmpty ? nil : $0 }
        let commands = console.commands
        do {
            switch name {
            case "bind":
                try commands.bind(scenario: form["scenario"] ?? "", to: try Self.target(form))
            case "unbind":
                try commands.unbind(id: binding ?? "")
            case "reset":
                try commands.reset(binding: binding)
            default:
                guard let seconds = Double(form["seconds"] ?? "") else { return scenarios(alert: "Give the seconds to advance as a number.", status: .badRequest) }
                try commands.advanceClock(binding: binding ?? "default", by: seconds)
            }
        } catch {
            return scenarios(alert: error.message, status: HTTPStatus(error.status))
        }
        return redirect(to: "\(Self.base)/scenarios?done=\(name)#\(name == "clock" ? "clock" : "bindings")")
    }

    /// The bind form's target: the whole server, a client id, a user, or `alias=tenant`.
    static func target(_ form: FormParameters) throws(ScenarioEngineError) -> BindingTarget {
        let value = (form["value"] ?? "").trimmingCharacters(in: .whitespaces)
        switch form["target"] ?? "server" {
        case "client": return try BindingTarget(clientID: value, user: nil, tenantAlias: nil, tenant: nil)
        case "user": return try BindingTarget(clientID: nil, user: value, tenantAlias: nil, tenant: nil)
        case "alias":
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            return try BindingTarget(clientID: nil, user: nil, tenantAlias: parts.first ?? "", tenant: parts.count == 2 ? parts[1] : nil)
        default: return .server
        }
    }
}
