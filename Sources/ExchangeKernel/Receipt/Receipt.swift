package import LocatedJSON
import EntraCrypto
package import EntraHTTP
package import FoundationGaps
import Synchronization

/// What the platform did while answering one request, returned beside the response so that the layers
/// above (journal, scenario engine, console, conformance judge) never re-read a body the platform rendered.
/// Rendered in the journal's JSON as `receipt` (docs/architecture.md); secrets never appear in it.
package struct Receipt: Sendable, Equatable {
    package var tokens: [IssuedToken] = []
    /// Authorization codes, refresh tokens and device codes created or redeemed.
    package var grants: [GrantHandleEvent] = []
    /// The browser sign-in flow the answer belongs to, and the page it shows.
    package var flow: FlowStep?
    /// The error code answered (`AADSTS50126`, `AADB2C90118`, a Graph code such as `InvalidAuthenticationToken`).
    package var error: String?
    /// What the answer said (its OAuth error, the scope and lifetimes it granted, the header facts).
    package var answer = Answer()
    /// The scenario rules that fired for this request.
    package var rules: [FiredRule] = []
    /// The custom authentication extensions the service called while answering.
    package var extensionCalls: [ExtensionCall] = []
    /// The scenario binding whose world answered (`b3`); nil for the default world. How a conformance
    /// case finds its own exchanges among parallel ones.
    package var world: String?
    /// The opaque secrets this exchange created (codes, refresh tokens, device and user codes), for the
    /// journal's redaction memory. Never rendered, and dropped before the journal stores the receipt.
    package var secrets: [String] = []
    /// The JWTs it signed (access and id tokens) with their SHA-256, for the console's ledger. Not in
    /// `secrets`: the journal redacts a JWT by its shape wherever it appears. Never rendered.
    package var signedTokens: [SignedToken] = []
    /// True once a world's service (Entra, B2C, Graph, Resource Manager, managed identity) answered, set by
    /// the world router: every secret it created is in `secrets`, so readers need not scan the body for them.
    package var isComplete = false

    package init() {}

    package var isEmpty: Bool { tokens.isEmpty && grants.isEmpty && flow == nil && error == nil && answer.isEmpty && rules.isEmpty && extensionCalls.isEmpty }

    /// A copy without the raw secrets, as the journal keeps it.
    package var withoutSecrets: Receipt {
        var copy = self
        copy.secrets = []
        copy.signedTokens = []
        return copy
    }

    /// `sha256:` and the first 16 hex digits of a token's or code's SHA-256: stable, safe to show, and
    /// prefixed by the journal's 8-digit redaction hash of the same value.
    package static func handleID(_ secret: String) -> String {
        handleID(digest: Digest.sha256(secret.utf8))
    }

    /// `handleID` of the value whose SHA-256 is `digest`.
    package static func handleID(digest: [UInt8]) -> String {
        Hex.lowercase(digest.prefix(8), after: "sha256:")
    }

    /// A JWT the exchange signed and its SHA-256, hashed once for the receipt and the console's ledger.
    /// One call of a developer's extension endpoint, as the sign-in log's Authentication Events tab shows it.
    package struct ExtensionCall: Sendable, Equatable {
        package var extensionID: String
        package var event: String
        package var targetURL: String
        package var attempts: Int
        /// The last attempt's HTTP status, when one answered.
        package var httpStatus: Int?
        package var milliseconds: Int
        /// nil: its answer was applied; else the 1003xxx code, its name and what was wrong.
        package var failure: String?

        package init(extensionID: String, event: String, targetURL: String, attempts: Int, httpStatus: Int?, milliseconds: Int, failure: String?) {
            self.extensionID = extensionID
            self.event = event
            self.targetURL = targetURL
            self.attempts = attempts
            self.httpStatus = httpStatus
            self.milliseconds = milliseconds
            self.failure = failure
        }
    }

    package struct SignedToken: Sendable, Equatable {
        package var token: String
        package var sha256: [UInt8]
    }

    package struct IssuedToken: Sendable, Equatable {
        package enum Kind: String, Sendable { case access, id, refresh }
        package var kind: Kind
        /// `handleID` of the token.
        package var id: String
        package var subject: String?
        package var objectID: String?
        package var clientID: String?
        package var scopes: [String]
        package var audience: String?
        package var expiresAt: Date?
        /// The signing key's `kid` (nil for refresh tokens, which are not signed, and unsigned forgeries).
        package var keyID: String?
        /// How a scenario or the mint broke the token on purpose; nil for a true one.
        package var forgery: TokenForgery?

        package init(kind: Kind, id: String, subject: String? = nil, objectID: String? = nil, clientID: String? = nil,
                    scopes: [String] = [], audience: String? = nil, expiresAt: Date? = nil, keyID: String? = nil) {
            self.kind = kind
            self.id = id
            self.subject = subject
            self.objectID = objectID
            self.clientID = clientID
            self.scopes = scopes
            self.audience = audience
            self.expiresAt = expiresAt
            self.keyID = keyID
        }
    }

    package struct GrantHandleEvent: Sendable, Equatable {
        package enum Kind: String, Sendable { case authorizationCode = "authorization_code", refreshToken = "refresh_token", deviceCode = "device_code" }
        package enum Action: String, Sendable { case created, redeemed }
        package var kind: Kind
        package var action: Action
        /// `handleID` of the code or token.
        package var id: String

        package init(kind: Kind, action: Action, id: String) {
            self.kind = kind
            self.action = action
            self.id = id
        }
    }

    package struct FlowStep: Sendable, Equatable {
        /// The flow id a page hands out (the `ctx` form field).
        package var id: String
        /// `sign_in`, `password`, `mfa`, `consent`, `choose_account`, `device_code`, … as the page is named.
        package var step: String

        package init(id: String, step: String) {
            self.id = id
            self.step = step
        }
    }

    /// The facts of an answer the conformance judge reasons over, so nothing reads the body back: an
    /// error's come up with the response (`HTTPResponse.statedError`, copied by the world router); a token
    /// answer's, the device authorization's, a discovery document's and a scripted body's are written by
    /// the operation that produced them.
    /// The header facts (`retryAfter`, `wwwAuthenticate`, `redirectError`) are read from the response where
    /// the journal records the receipt beside it (`read(headers:)`): scripted and replayed answers carry
    /// them as much as rendered ones.
    package struct Answer: Sendable, Equatable {
        /// The OAuth `error` (`invalid_grant`, `slow_down`), or the `code` of a Graph or Resource Manager error.
        package var error: String?
        package var suberror: String?
        /// `error_codes`: the AADSTS numbers of an Entra error.
        package var errorCodes: [Int]
        /// The `scope` a token answer granted.
        package var scope: String?
        /// `expires_in` of a token answer or a device authorization, in seconds.
        package var expiresIn: Int?
        /// `refresh_in` of a token answer, in seconds.
        package var refreshIn: Int?
        /// `Receipt.handleID` of the refresh token the answer carries.
        package var refreshToken: String?
        /// The device authorization's polling `interval`, in seconds.
        package var interval: Int?
        /// The `issuer` a discovery document names.
        package var issuer: String?
        /// `Retry-After` and `WWW-Authenticate` as sent.
        package var retryAfter: String?
        package var wwwAuthenticate: String?
        /// The error parameters of a redirect's `Location` (an /authorize error sent to the app).
        package var redirectError: RedirectError?
        /// A Graph collection page: how many items its `value` holds, and its `@odata.nextLink` (none on the last page).
        package var items: Int?
        package var nextLink: String?

        package init(error: String? = nil, suberror: String? = nil, errorCodes: [Int] = [], scope: String? = nil, expiresIn: Int? = nil,
                     refreshIn: Int? = nil, refreshToken: String? = nil, interval: Int? = nil, issuer: String? = nil,
                     retryAfter: String? = nil, wwwAuthenticate: String? = nil, redirectError: RedirectError? = nil,
                     items: Int? = nil, nextLink: String? = nil) {
            self.error = error
            self.suberror = suberror
            self.errorCodes = errorCodes
            self.scope = scope
            self.expiresIn = expiresIn
            self.refreshIn = refreshIn
            self.refreshToken = refreshToken
            self.interval = interval
            self.issuer = issuer
            self.retryAfter = retryAfter
            self.wwwAuthenticate = wwwAuthenticate
            self.redirectError = redirectError
            self.items = items
            self.nextLink = nextLink
        }

        package var isEmpty: Bool { self == Answer() }
    }

    /// `error`, `suberror`, `error_subcode` and `error_description` of a redirect's `Location`.
    package struct RedirectError: Sendable, Equatable {
        package var error: String?
        package var suberror: String?
        /// `error_subcode`: `cancel` when the user backed out of the pages.
        package var subcode: String?
        package var errorDescription: String?

        package init(error: String? = nil, suberror: String? = nil, subcode: String? = nil, errorDescription: String? = nil) {
            self.error = error
            self.suberror = suberror
            self.subcode = subcode
            self.errorDescription = errorDescription
        }

        /// Nil when the `Location` names none of them (`parameters(location:)`).
        init?(location: String) {
            guard let parameters = Self.parameters(location: location) else { return nil }
            self.init(error: parameters["error"], suberror: parameters["suberror"], subcode: parameters["error_subcode"],
                      errorDescription: parameters["error_description"])
        }

        /// The parameters of a redirect's `Location` that carry an authorization error: its query, or its
        /// fragment when the client asked for `response_mode=fragment` (MSAL.js does). Nil when neither names
        /// `error`, `suberror`, `error_subcode` or `error_description`: a success redirect (a code, a state)
        /// is not decoded.
        package static func parameters(location: String) -> FormParameters? {
            var url = Substring(location)
            var fragment: Substring?
            if let hash = url.firstIndex(of: "#") {
                fragment = url[url.index(after: hash)...]
                url = url[..<hash]
            }
            let query = url.firstIndex(of: "?").map { url[url.index(after: $0)...] }
            for part in [query, fragment] {
                // Every name sought contains `error`: text without it is not decoded.
                guard let part, part.contains("error") else { continue }
                let decoded = FormParameters(decoding: String(part))
                if names.contains(where: { decoded[$0] != nil }) { return decoded }
            }
            return nil
        }

        private static let names = ["error", "suberror", "error_subcode", "error_description"]
    }

    package struct FiredRule: Sendable, Equatable {
        package var scenario: String
        /// 0-based index of the rule in the scenario's `rules`.
        package var index: Int

        package init(scenario: String, index: Int) {
            self.scenario = scenario
            self.index = index
        }
    }
}

/// Where the handlers of one exchange write what they did; the layer that made the `ExchangeContext`
/// reads the finished `Receipt` beside the response. Shared by every copy of the context.
package final class ReceiptRecorder: Sendable {
    private let receipt = Mutex(Receipt())

    package init() {}

    package var current: Receipt { receipt.withLock { $0 } }

    package func update(_ change: (inout Receipt) -> Void) {
        receipt.withLock { change(&$0) }
    }

    /// `sha256`: the secret's, when the caller has it (a signed token's, hashed once for its `id`).
    package func issued(_ token: Receipt.IssuedToken, secret: String, sha256: [UInt8]? = nil) {
        update {
            $0.tokens.append(token)
            if token.kind == .refresh {
                $0.secrets.append(secret)
            } else {
                $0.signedTokens.append(Receipt.SignedToken(token: secret, sha256: sha256 ?? Digest.sha256(secret.utf8)))
            }
        }
    }

    package func grant(_ kind: Receipt.GrantHandleEvent.Kind, _ action: Receipt.GrantHandleEvent.Action, handle: String) {
        update {
            $0.grants.append(.init(kind: kind, action: action, id: Receipt.handleID(handle)))
            if action == .created { $0.secrets.append(handle) }
        }
    }

    package func calledExtension(_ call: Receipt.ExtensionCall) {
        update { $0.extensionCalls.append(call) }
    }

    package func flow(_ id: String, step: String) {
        update { $0.flow = Receipt.FlowStep(id: id, step: step) }
    }

    /// The error the answer states (`HTTPResponse.statedError`): its code, and its body's facts, which
    /// replace those of a body rendered before it (a grant that fails after its tokens were rendered
    /// answers the error alone).
    package func stated(_ error: StatedError) {
        update {
            if let code = error.code { $0.error = code }
            if let body = error.body { $0.answer = Receipt.Answer(error: body.error, suberror: body.suberror, errorCodes: body.errorCodes) }
        }
    }

    /// The facts of the body being rendered. Each rendering replaces the last: the body sent is the one
    /// rendered last (a grant that fails after its tokens were rendered answers the error alone).
    package func answered(_ answer: Receipt.Answer) {
        update { $0.answer = answer }
    }
}

extension Receipt {
    /// The receipt as the journal's `receipt` member (see docs/architecture.md for the shape).
    package var json: JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        let tokenItems: [JSONValue] = tokens.map { token in
            .object([
                ("kind", .string(token.kind.rawValue)), ("id", .string(token.id)),
                ("subject", optional(token.subject)), ("oid", optional(token.objectID)), ("clientId", optional(token.clientID)),
                ("scopes", .strings(token.scopes)), ("audience", optional(token.audience)),
                ("expiresAt", token.expiresAt.map { .string(InternetDate.format(secondsSince1970: $0.timeIntervalSince1970)) } ?? .null),
                ("kid", optional(token.keyID)), ("forgery", optional(token.forgery?.rawValue)),
            ])
        }
        let grantItems: [JSONValue] = grants.map { .object([("kind", .string($0.kind.rawValue)), ("action", .string($0.action.rawValue)), ("id", .string($0.id))]) }
        let ruleItems: [JSONValue] = rules.map { .object([("scenario", .string($0.scenario)), ("index", .int($0.index))]) }
        let extensionItems: [JSONValue] = extensionCalls.map { call in
            .object([
                ("extensionId", .string(call.extensionID)), ("event", .string(call.event)), ("targetUrl", .string(call.targetURL)),
                ("attempts", .int(call.attempts)), ("httpStatus", call.httpStatus.map { .int($0) } ?? .null),
                ("milliseconds", .int(call.milliseconds)), ("failure", optional(call.failure)),
            ])
        }
        var members: [(String, JSONValue)] = [
            ("tokens", .array(tokenItems)),
            ("grants", .array(grantItems)),
            ("flow", flow.map { .object([("id", .string(Receipt.handleID($0.id))), ("step", .string($0.step))]) } ?? .null),
            ("error", optional(error)),
            ("answer", answer.json),
            ("rules", .array(ruleItems)),
            ("world", optional(world)),
        ]
        if !extensionItems.isEmpty { members.append(("extensionCalls", .array(extensionItems))) }
        return .object(members)
    }
}

extension Receipt.Answer {
    /// The facts a response's headers carry, whoever made it: the last `Retry-After`, `WWW-Authenticate`
    /// and `Location` sent.
    package mutating func read(headers: HTTPHeaders) {
        for field in headers {
            if field.name.equalsIgnoringASCIICase("retry-after") {
                retryAfter = field.value
            } else if field.name.equalsIgnoringASCIICase("www-authenticate") {
                wwwAuthenticate = field.value
            } else if field.name.equalsIgnoringASCIICase("location") {
                redirectError = Receipt.RedirectError(location: field.value)
            }
        }
    }

    /// The journal's `answer` member: the facts the answer said, and no others.
    var json: JSONValue {
        var members: [(String, JSONValue)] = []
        func text(_ name: String, _ value: String?) { if let value { members.append((name, .string(value))) } }
        func number(_ name: String, _ value: Int?) { if let value { members.append((name, .int(value))) } }
        text("error", error)
        text("suberror", suberror)
        if !errorCodes.isEmpty { members.append(("errorCodes", .array(errorCodes.map { .int($0) }))) }
        text("scope", scope)
        number("expiresIn", expiresIn)
        number("refreshIn", refreshIn)
        text("refreshToken", refreshToken)
        number("interval", interval)
        text("issuer", issuer)
        text("retryAfter", retryAfter)
        text("wwwAuthenticate", wwwAuthenticate)
        number("items", items)
        text("nextLink", nextLink)
        if let redirectError {
            var redirect: [(String, JSONValue)] = []
            for (name, value) in [("error", redirectError.error), ("suberror", redirectError.suberror), ("errorSubcode", redirectError.subcode),
                                  ("errorDescription", redirectError.errorDescription)] {
                if let value { redirect.append((name, .string(value))) }
            }
            members.append(("redirect", .object(redirect)))
        }
        return .object(members)
    }
}
