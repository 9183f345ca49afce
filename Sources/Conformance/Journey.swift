package import FoundationGaps
package import LocatedJSON

/// One app-level step the suite asks the adapter to take (adapter protocol, docs/conformance.md).
package struct JourneyStep: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// `signInDevice` came with protocol 1.1, `signInSilently`, `getAppToken` and `listGraph` with 1.2,
        /// `signInNative` with 1.3, `callMCP` with 1.4; an older adapter answers them `unsupported`.
        case signIn, signInSilently, signInDevice, signInNative, getToken, getAppToken, callGraph, listGraph, callMCP, signOut, wait
    }

    /// How the customer proves who they are in a native sign-in (`signInNative`).
    package enum NativeMethod: String, Sendable, Codable {
        /// Their password, in the app's own screen.
        case password
        /// A one-time code mailed to them (email OTP), read from `FAKEENTRA_OUTBOX`.
        case code
    }

    /// What the customer does with the first code of a native sign-in before the one that works.
    package enum FirstCode: String, Sendable, Codable {
        /// They type a wrong code first.
        case mistyped
        /// They tap "resend code" before typing one.
        case resent
    }

    /// `FAKEENTRA_CONFORMANCE_PROTOCOL`: the minor version grows with steps an older adapter may answer `unsupported`.
    package static let protocolVersion = "1.4"

    package var id: Int
    package var step: Kind
    package var scopes: [String]?
    package var prompt: String?
    /// B2C user flow (sign-in through `FAKEENTRA_B2C_AUTHORITY`).
    package var policy: String?
    /// `signIn`: another user of the tenant signs in (the app names them as `login_hint`); nil, the case's user.
    package var user: String?
    /// Graph path for `callGraph` and `listGraph`, e.g. `/v1.0/me`, `/v1.0/me/events?$top=5`.
    package var path: String?
    /// `callMCP`: the tool the app calls on the case's MCP server.
    package var tool: String?
    /// For `wait`: how long the app idles.
    package var seconds: Double?
    /// `signInNative`: how the customer proves who they are, and what they do with a first code.
    package var method: NativeMethod?
    package var firstCode: FirstCode?
    /// Seconds the adapter has to answer; nil means the protocol's default (30).
    package var deadline: Double?

    package init(id: Int, step: Kind, scopes: [String]? = nil, prompt: String? = nil, policy: String? = nil, user: String? = nil,
                path: String? = nil, tool: String? = nil, seconds: Double? = nil, method: NativeMethod? = nil, firstCode: FirstCode? = nil,
                deadline: Double? = nil) {
        self.id = id
        self.step = step
        self.scopes = scopes
        self.prompt = prompt
        self.policy = policy
        self.user = user
        self.path = path
        self.tool = tool
        self.seconds = seconds
        self.method = method
        self.firstCode = firstCode
        self.deadline = deadline
    }

    package static let defaultDeadline: Double = 30

    package var deadlineSeconds: Double { deadline ?? Self.defaultDeadline }

    /// The longest the adapter may take over this step: its deadline, and a wait's own seconds.
    package var budgetSeconds: Double { deadlineSeconds + (seconds ?? 0) }

    /// The JSON line sent on the adapter's stdin (no trailing newline).
    package var jsonLine: String {
        let deadline = step != .wait ? deadlineSeconds : deadline
        let line = JSONValue.object(omittingNil: [
            "id": .int(id), "step": .string(step.rawValue), "scopes": scopes.map(JSONValue.strings), "prompt": prompt.map(JSONValue.string),
            "policy": policy.map(JSONValue.string), "user": user.map(JSONValue.string), "path": path.map(JSONValue.string), "tool": tool.map(JSONValue.string), "seconds": seconds.map(JSONValue.double),
            "method": method.map { .string($0.rawValue) }, "firstCode": firstCode.map { .string($0.rawValue) },
            "deadline": deadline.map(JSONValue.double),
        ])
        return String(decoding: line.sortedKeysBytes, as: UTF8.self)
    }

    /// A short human form: `getToken User.Read`, `wait 3s`.
    package var summary: String {
        switch step {
        case .wait: "wait \(seconds.map { String(format: "%g", $0) } ?? "0")s"
        case .callGraph: "callGraph \(path ?? "/v1.0/me")"
        case .callMCP: "callMCP \(tool ?? MCPServerSettings.tool)"
        case .listGraph: "listGraph \(path ?? "")"
        case .signInNative: (["signInNative", method?.rawValue ?? "password"] + (firstCode.map { ["(first code \($0.rawValue))"] } ?? [])).joined(separator: " ")
        case .signIn: (["signIn"] + (scopes ?? []) + (policy.map { ["(\($0))"] } ?? []) + (prompt.map { ["prompt=\($0)"] } ?? [])
                       + (user.map { ["as \($0)"] } ?? [])).joined(separator: " ")
        default: ([step.rawValue] + (scopes ?? [])).joined(separator: " ")
        }
    }
}

/// Builders keep the catalogue readable: `.signIn(1)`, `.getToken(2, ["Calendars.Read"])`.
extension JourneyStep {
    package static func signIn(_ id: Int, _ scopes: [String] = ["User.Read"], policy: String? = nil, deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .signIn, scopes: scopes, policy: policy, deadline: deadline)
    }
    /// Stands for the tenant's second user in the catalogue; a case's start names them.
    package static let secondUser = "{second user}"

    /// The tenant's second user signs in (account switching, a shared device).
    package static func signInAsSecondUser(_ id: Int) -> JourneyStep {
        JourneyStep(id: id, step: .signIn, scopes: ["User.Read"], user: secondUser)
    }

    /// A sign-in that first tries the browser without showing anything (`prompt=none`, as MSAL.js's
    /// `ssoSilent`), and shows the sign-in only when the service says the user is needed.
    package static func signInSilently(_ id: Int, _ scopes: [String] = ["User.Read"]) -> JourneyStep {
        JourneyStep(id: id, step: .signInSilently, scopes: scopes)
    }
    /// A customer of an External ID tenant signs in on the app's own screens, through the native
    /// authentication API, as MSAL for iOS/macOS and Android's native authentication do.
    package static func signInNative(_ id: Int, _ method: NativeMethod, firstCode: FirstCode? = nil, deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .signInNative, scopes: ["User.Read"], method: method, firstCode: firstCode, deadline: deadline)
    }
    package static func signInDevice(_ id: Int, _ scopes: [String] = ["User.Read"], deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .signInDevice, scopes: scopes, deadline: deadline)
    }
    package static func getToken(_ id: Int, _ scopes: [String] = ["User.Read"], deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .getToken, scopes: scopes, deadline: deadline)
    }
    /// A daemon's token: the app's own (client credentials grant), for a `/.default` scope.
    package static func getAppToken(_ id: Int, _ scopes: [String] = ["https://graph.microsoft.com/.default"]) -> JourneyStep {
        JourneyStep(id: id, step: .getAppToken, scopes: scopes)
    }
    package static func callGraph(_ id: Int, _ path: String = "/v1.0/me", scopes: [String] = ["User.Read"], deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .callGraph, scopes: scopes, path: path, deadline: deadline)
    }
    /// A Graph collection the app reads to its end, however many pages it comes in.
    package static func listGraph(_ id: Int, _ path: String, scopes: [String], deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .listGraph, scopes: scopes, path: path, deadline: deadline)
    }
    /// The app calls a tool of the MCP server the case names (`FAKEENTRA_MCP_SERVER`), signing in first
    /// when it has no token for that server, as an MCP client meets a server protected by Entra ID.
    package static func callMCP(_ id: Int, deadline: Double? = nil) -> JourneyStep {
        JourneyStep(id: id, step: .callMCP, tool: MCPServerSettings.tool, deadline: deadline)
    }
    package static func signOut(_ id: Int) -> JourneyStep { JourneyStep(id: id, step: .signOut) }
    package static func wait(_ id: Int, _ seconds: Double) -> JourneyStep { JourneyStep(id: id, step: .wait, seconds: seconds) }
}

/// The error kinds an adapter may report; anything else is read as `other`.
package enum AdapterError: String, Sendable, Codable, CaseIterable {
    case declinedScopes = "declined_scopes"
    case interactionRequired = "interaction_required"
    case consentRequired = "consent_required"
    case userCanceled = "user_canceled"
    case invalidGrant = "invalid_grant"
    case invalidClient = "invalid_client"
    case serverError = "server_error"
    case throttled
    case network
    case timeout
    case rejectedToken = "rejected_token"
    case passwordResetRequested = "password_reset_requested"
    case graphError = "graph_error"
    case unsupported
    case other
}

/// What happened to one step, as the suite saw it: the adapter's reply, or no reply.
package struct StepOutcome: Sendable, Codable, Equatable {
    package enum Observed: String, Sendable, Codable {
        /// The adapter answered with one JSON line.
        case answered
        /// No answer before the step's deadline.
        case deadlineExceeded = "deadline_exceeded"
        /// The adapter exited (or closed stdout) before answering.
        case adapterExited = "adapter_exited"
        /// The line was not a reply of this protocol.
        case malformed
        /// The step was never sent: an earlier one ended the case.
        case notSent = "not_sent"
    }

    package var id: Int
    package var step: JourneyStep.Kind
    package var observed: Observed
    package var ok: Bool
    package var error: AdapterError?
    package var suberror: String?
    package var status: Int?
    package var scopes: [String]?
    /// `listGraph`: how many items the app collected from all the pages.
    package var count: Int?
    /// Whose result it is, as the app sees it: the signed-in account's user name, or the user Graph
    /// answered `/v1.0/me` about.
    package var account: String?
    package var detail: String?
    /// When the suite sent the step and read its reply; nil when a test reported the outcome through
    /// the control API without times (then checks that attribute requests to steps are NOT_TESTABLE).
    package var startedAt: Date?
    package var endedAt: Date?

    package init(id: Int, step: JourneyStep.Kind, observed: Observed, ok: Bool = false, error: AdapterError? = nil, suberror: String? = nil,
                status: Int? = nil, scopes: [String]? = nil, count: Int? = nil, account: String? = nil, detail: String? = nil, startedAt: Date?, endedAt: Date?) {
        self.id = id
        self.step = step
        self.observed = observed
        self.ok = ok
        self.error = error
        self.suberror = suberror
        self.status = status
        self.scopes = scopes
        self.count = count
        self.account = account
        self.detail = detail
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// Reads the adapter's reply line to `step`; a line that is not one becomes `malformed` with the text as detail.
    package static func parse(line: String, for step: JourneyStep, startedAt: Date?, endedAt: Date?) -> StepOutcome {
        // Read leniently: adapters are written in many languages, whose JSON libraries differ in what they emit.
        guard let object = LocatedJSON.object(lenientBody: line.utf8, source: "reply") else {
            return StepOutcome(id: step.id, step: step.step, observed: .malformed, detail: String(line.prefix(500)), startedAt: startedAt, endedAt: endedAt)
        }
        return reply(object, for: step, startedAt: startedAt, endedAt: endedAt, text: line)
    }

    /// An adapter reply, a JSON object (or a control-API outcome, which may also say `observed`), as an outcome.
    package static func reply(_ object: JSONValue, for step: JourneyStep, startedAt: Date?, endedAt: Date?, text: String? = nil) -> StepOutcome {
        var outcome = StepOutcome(id: step.id, step: step.step, observed: .malformed, detail: text.map { String($0.prefix(500)) }, startedAt: startedAt, endedAt: endedAt)
        if let observed = object["observed"]?.string.flatMap(Observed.init(rawValue:)), observed != .answered {
            outcome.observed = observed
            outcome.detail = object["detail"]?.string
            return outcome
        }
        guard let ok = object["ok"]?.bool else { return outcome }
        if let id = object["id"]?.int, id != step.id {
            outcome.detail = "reply id \(id) to step \(step.id): " + (outcome.detail ?? "")
            return outcome
        }
        outcome.observed = .answered
        outcome.ok = ok
        outcome.error = object["error"]?.string.map { AdapterError(rawValue: $0) ?? .other }
        if !ok, outcome.error == nil { outcome.error = .other }
        outcome.suberror = object["suberror"]?.string
        outcome.status = object["status"]?.int
        outcome.scopes = object["scopes"]?.strings
        outcome.count = object["count"]?.int
        outcome.account = object["account"]?.string
        outcome.detail = object["detail"]?.string.map { String($0.prefix(2000)) }
        return outcome
    }

    /// One line for tables: `ok 200`, `error throttled`, `no answer in 30 s`.
    package var summary: String {
        switch observed {
        case .answered:
            if ok {
                return "ok" + (status.map { " \($0)" } ?? "") + (count.map { ", \($0) items" } ?? "") + (account.map { " for \($0)" } ?? "")
                    + (scopes.map { " [\($0.joined(separator: " "))]" } ?? "")
            }
            return "error \(error?.rawValue ?? "other")" + (suberror.map { "/\($0)" } ?? "") + (status.map { " \($0)" } ?? "")
        case .deadlineExceeded: return "no answer before the deadline"
        case .adapterExited: return "adapter exited without answering"
        case .malformed: return "malformed reply"
        case .notSent: return "not sent"
        }
    }
}
