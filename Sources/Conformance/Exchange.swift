package import FoundationGaps
package import ExchangeKernel
package import Journal
import IdentityPlatform

/// One request the client sent and what it was answered: the evidence the judge reasons over.
///
/// The one place that reads journal entries: request facts from the entry, what the platform did and
/// what its answer said from its receipt (the error code it answered, the page it showed, the scenario
/// rules that fired, the answer's facts as their renderer wrote them), so the judge never reads a body.
package struct Exchange: Sendable, Equatable {
    package var id: Int
    package var time: Date
    package var method: String
    package var path: String
    /// The journal's endpoint kind: `token`, `authorize`, `graph`, `b2c`, `openid_configuration`…
    package var kind: String
    package var status: Int
    /// Query and form parameters, secrets redacted (a redacted value keeps a short hash, so equal
    /// tokens stay recognisable).
    package var parameters: [String: String]
    /// What the answer said: its error, the scope, lifetimes and refresh token it granted, the device
    /// flow's interval, discovery's issuer, `Retry-After`, `WWW-Authenticate`, a redirect's error.
    package var answer: Receipt.Answer
    /// From the receipt: the error code answered (`AADSTS65004`, `AADB2C90118`, a Graph code), the page
    /// shown (`sign_in`, `mfa`, `consent`…) and the indexes of the scenario rules that fired.
    package var errorCode: String?
    package var flowStep: String?
    package var rules: [Int]

    package init(id: Int, time: Date, method: String, path: String, kind: String, status: Int, parameters: [String: String] = [:],
                answer: Receipt.Answer = Receipt.Answer(), errorCode: String? = nil, flowStep: String? = nil, rules: [Int] = []) {
        self.id = id
        self.time = time
        self.method = method
        self.path = path
        self.kind = kind
        self.status = status
        self.parameters = parameters
        self.answer = answer
        self.errorCode = errorCode
        self.flowStep = flowStep
        self.rules = rules
    }

    package init(_ entry: JournalEntry) {
        var parameters: [String: String] = [:]
        for (name, value) in entry.query where parameters[name] == nil { parameters[name] = value }
        // A form parameter speaks over the query's, as the endpoints read a POST.
        for (name, value) in entry.requestForm { parameters[name] = value }
        let receipt = entry.receipt
        self.init(id: entry.id, time: entry.time, method: entry.method, path: entry.path, kind: entry.kind, status: entry.status,
                  parameters: parameters, answer: receipt.answer, errorCode: receipt.error, flowStep: receipt.flow?.step,
                  rules: receipt.rules.map(\.index))
    }

    package var grantType: String? { parameters["grant_type"] }

    /// One fact as text, as checks compare it and reports show it; nil when the answer did not say it.
    package func fact(_ name: AnswerFact) -> String? {
        // A redirect's own error parameters speak for the answer over its body's.
        let redirect = answer.redirectError
        return switch name {
        case .error: redirect?.error ?? answer.error
        case .suberror: redirect?.suberror ?? answer.suberror
        case .errorCodes: Self.list(answer.errorCodes)
        case .scope: answer.scope
        case .refreshToken: answer.refreshToken
        case .expiresIn: answer.expiresIn.map { String($0) }
        case .refreshIn: answer.refreshIn.map { String($0) }
        case .interval: answer.interval.map { String($0) }
        case .issuer: answer.issuer
        case .retryAfter: answer.retryAfter
        case .wwwAuthenticate: answer.wwwAuthenticate
        case .errorSubcode: redirect?.subcode
        case .errorDescription: redirect?.errorDescription
        case .errorCode: errorCode
        case .flowStep: flowStep
        case .rules: Self.list(rules)
        case .items: answer.items.map { String($0) }
        case .nextLink: answer.nextLink
        }
    }

    /// `fact`'s inverse, for a report read back: a fact's text sets what it was read from.
    private mutating func set(_ name: AnswerFact, text: String) {
        func numbers() -> [Int] { text.split(separator: ",").compactMap { Int($0) } }
        func redirect(_ change: (inout Receipt.RedirectError) -> Void) {
            var error = answer.redirectError ?? Receipt.RedirectError()
            change(&error)
            answer.redirectError = error
        }
        switch name {
        case .error: answer.error = text
        case .suberror: answer.suberror = text
        case .errorCodes: answer.errorCodes = numbers()
        case .scope: answer.scope = text
        case .refreshToken: answer.refreshToken = text
        case .expiresIn: answer.expiresIn = Int(text)
        case .refreshIn: answer.refreshIn = Int(text)
        case .interval: answer.interval = Int(text)
        case .issuer: answer.issuer = text
        case .retryAfter: answer.retryAfter = text
        case .wwwAuthenticate: answer.wwwAuthenticate = text
        case .errorSubcode: redirect { $0.subcode = text }
        case .errorDescription: redirect { $0.errorDescription = text }
        case .errorCode: errorCode = text
        case .flowStep: flowStep = text
        case .rules: rules = numbers()
        case .items: answer.items = Int(text)
        case .nextLink: answer.nextLink = text
        }
    }

    private static func list(_ numbers: [Int]) -> String? {
        numbers.isEmpty ? nil : numbers.map { String($0) }.joined(separator: ",")
    }

    /// Whether this request presented the refresh token whose receipt handle is `handle`: the journal
    /// shows a presented token as `[redacted N chars sha256:<8 hex>]`, the handle's first 8 hex digits.
    package func presentsRefreshToken(_ handle: String) -> Bool {
        guard let presented = parameters["refresh_token"], let hash = Redaction.markerHashes(in: presented).last else { return false }
        return handle.hasPrefix("sha256:" + hash)
    }

    /// `POST /token grant_type=refresh_token → 400 invalid_grant/bad_token`.
    package var summary: String {
        var text = "\(method) \(Self.shortPath(path))"
        if let grantType { text += " grant_type=\(grantType.replacingOccurrences(of: "urn:ietf:params:oauth:grant-type:", with: ""))" }
        if kind == "authorize" || path.hasSuffix("/authorize"), let policy = parameters["p"] { text += " p=\(policy)" }
        text += " → \(status)"
        let error = fact(.error)
        if let error { text += " \(error)" + (fact(.suberror).map { "/\($0)" } ?? "") }
        if let errorCode, !(error.map { errorCode.hasSuffix($0) } ?? false) { text += " [\(errorCode)]" }
        if let flowStep { text += " (page \(flowStep))" }
        if let retryAfter = answer.retryAfter { text += " Retry-After: \(retryAfter)" }
        return text
    }

    /// Paths lose their tenant segment in summaries (`…/oauth2/v2.0/token`), which is the same in every case.
    static func shortPath(_ path: String) -> String {
        if let range = path.range(of: "/oauth2/") { return "…" + path[range.lowerBound...] }
        return path
    }
}

/// The facts of an answer a check can ask about (`Exchange.fact`), named as the answer on the wire names
/// them: OAuth's members (`expires_in`, `error_codes`) and headers in lower case (`retry-after`), and the
/// receipt's own facts in the same style (`error_code`, `flow_step`). The journal's `receipt.answer` names
/// the same facts in camelCase (`expiresIn`, `retryAfter`). A report keeps an exchange's facts under these
/// names.
package enum AnswerFact: String, Sendable, CaseIterable {
    case error, suberror
    case errorCodes = "error_codes"
    case scope
    /// The refresh token issued, by its receipt handle (`sha256:` and 16 hex digits).
    case refreshToken = "refresh_token"
    case expiresIn = "expires_in"
    case refreshIn = "refresh_in"
    /// The device authorization's polling interval.
    case interval
    /// The issuer a discovery document names.
    case issuer
    case retryAfter = "retry-after"
    case wwwAuthenticate = "www-authenticate"
    /// A redirect's `error_subcode` and `error_description`.
    case errorSubcode = "error_subcode"
    case errorDescription = "error_description"
    /// From the receipt: `AADSTS65004`, `AADB2C90118`, a Graph code.
    case errorCode = "error_code"
    /// From the receipt: the page shown.
    case flowStep = "flow_step"
    /// From the receipt: the fired rules' indexes, joined by commas.
    case rules
    /// A Graph collection page: the number of items in its `value`.
    case items
    /// A Graph collection page's `@odata.nextLink` (absent on the last page).
    case nextLink = "@odata.nextLink"
}

/// A report keeps an exchange's answer as a map of fact names (`AnswerFact`) to text rather than as the
/// receipt's structure, so that a saved report (a baseline) reads back whatever shape the receipt takes.
extension Exchange: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, time, method, path, kind, status, parameters, answer
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(Int.self, forKey: .id), time: try container.decode(Date.self, forKey: .time),
                  method: try container.decode(String.self, forKey: .method), path: try container.decode(String.self, forKey: .path),
                  kind: try container.decode(String.self, forKey: .kind), status: try container.decode(Int.self, forKey: .status),
                  parameters: try container.decode([String: String].self, forKey: .parameters))
        // A name that is no fact (a saved report's `location`) is skipped: reading a report back never fails
        // on a fact it does not know.
        for (name, text) in try container.decode([String: String].self, forKey: .answer) {
            if let fact = AnswerFact(rawValue: name) { set(fact, text: text) }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(time, forKey: .time)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(kind, forKey: .kind)
        try container.encode(status, forKey: .status)
        try container.encode(parameters, forKey: .parameters)
        var facts: [String: String] = [:]
        for fact in AnswerFact.allCases { facts[fact.rawValue] = self.fact(fact) }
        try container.encode(facts, forKey: .answer)
    }
}

/// Which exchanges a check is about.
package struct ExchangeMatch: Sendable, Equatable, CustomStringConvertible {
    package var kinds: [String] = []
    /// Substring of the path (`/token`, `/authorize`).
    package var pathContains: String?
    package var grantTypes: [String] = []
    package var statuses: ClosedRange<Int>?
    /// A B2C policy, named in the path (`/tfp/{tenant}/{policy}/…`) or as `p=`.
    package var policy: String?
    /// Each named parameter must be present (nil value) or equal.
    package var parameters: [String: String?] = [:]
    /// Each named parameter must contain this text (the `claims` parameter declaring `cp1`).
    package var parameterContains: [String: String] = [:]
    /// Each named parameter must be absent or another value (an /authorize that is not `prompt=none`).
    package var parameterIsNot: [String: String] = [:]
    /// Each named answer fact must be present (nil value) or equal.
    package var answer: [AnswerFact: String?] = [:]
    package var label: String

    package init(_ label: String, kinds: [String] = [], pathContains: String? = nil, grantTypes: [String] = [], statuses: ClosedRange<Int>? = nil,
                policy: String? = nil, parameters: [String: String?] = [:], answer: [AnswerFact: String?] = [:]) {
        self.label = label
        self.policy = policy
        self.kinds = kinds
        self.pathContains = pathContains
        self.grantTypes = grantTypes
        self.statuses = statuses
        self.parameters = parameters
        self.answer = answer
    }

    package func matches(_ exchange: Exchange) -> Bool {
        if !kinds.isEmpty, !kinds.contains(exchange.kind) { return false }
        if let pathContains, !exchange.path.lowercased().contains(pathContains.lowercased()) { return false }
        if !grantTypes.isEmpty, !grantTypes.contains(where: { exchange.grantType?.hasSuffix($0) ?? false }) { return false }
        if let statuses, !statuses.contains(exchange.status) { return false }
        if let policy {
            let inPath = exchange.path.lowercased().contains("/\(policy.lowercased())/")
            guard inPath || exchange.parameters["p"]?.caseInsensitiveCompare(policy) == .orderedSame else { return false }
        }
        for (name, value) in parameters {
            guard let actual = exchange.parameters[name] else { return false }
            if let value, actual.caseInsensitiveCompare(value) != .orderedSame { return false }
        }
        for (name, value) in parameterIsNot where exchange.parameters[name]?.caseInsensitiveCompare(value) == .orderedSame { return false }
        for (name, text) in parameterContains {
            guard let actual = exchange.parameters[name], actual.range(of: text, options: .caseInsensitive) != nil else { return false }
        }
        for (name, value) in answer {
            guard let actual = exchange.fact(name) else { return false }
            if let value, actual.caseInsensitiveCompare(value) != .orderedSame { return false }
        }
        return true
    }

    package var description: String { label }

    /// "no token request", "no code redemption": the label without its article after "no" (labels
    /// carry one, "a token request", to read well elsewhere).
    package var absence: String { "no " + withoutArticle }

    /// "device-code poll" for "a device-code poll": the label after "no", "each".
    package var withoutArticle: String {
        let article = ["a ", "an ", "the "].first { label.lowercased().hasPrefix($0) }
        return article.map { String(label.dropFirst($0.count)) } ?? label
    }

    /// The same match, restricted to some statuses.
    package func answered(_ statuses: ClosedRange<Int>, _ label: String? = nil) -> ExchangeMatch {
        var copy = self
        copy.statuses = statuses
        copy.label = label ?? "\(self.label) answered \(statuses.lowerBound == statuses.upperBound ? "\(statuses.lowerBound)" : "\(statuses)")"
        return copy
    }

    package func with(answer name: AnswerFact, _ value: String? = nil, label: String) -> ExchangeMatch {
        var copy = self
        copy.answer[name] = .some(value)
        copy.label = label
        return copy
    }

    package func with(parameter name: String, containing text: String, label: String) -> ExchangeMatch {
        var copy = self
        copy.parameterContains[name] = text
        copy.label = label
        return copy
    }

    package func without(parameter name: String, _ value: String, label: String) -> ExchangeMatch {
        var copy = self
        copy.parameterIsNot[name] = value
        copy.label = label
        return copy
    }

    package func with(parameter name: String, _ value: String? = nil, label: String) -> ExchangeMatch {
        var copy = self
        copy.parameters[name] = .some(value)
        copy.label = label
        return copy
    }

    // Token endpoint requests (Entra and B2C alike).
    package static let tokenRequest = ExchangeMatch("a token request", pathContains: "/token")
    package static let refresh = ExchangeMatch("a refresh-token request", pathContains: "/token", grantTypes: ["refresh_token"])
    package static let clientCredentials = ExchangeMatch("an app-token request (client credentials)", pathContains: "/token", grantTypes: ["client_credentials"])
    package static let codeRedemption = ExchangeMatch("the code redemption", pathContains: "/token", grantTypes: ["authorization_code"])
    package static let authorize = ExchangeMatch("an /authorize request", pathContains: "/authorize")
    package static let graph = ExchangeMatch("a Graph call", kinds: ["graph"])
    package static let openIDConfiguration = ExchangeMatch("the OpenID configuration", pathContains: "/.well-known/openid-configuration")
    /// What a client does with a discovery document it trusted: sign in at its authorization endpoint,
    /// redeem at its token endpoint, call the API with the tokens.
    package static let usesDiscoveredEndpoints = ExchangeMatch("an /authorize, token or Graph request", kinds: ["authorize", "token", "device_code", "graph"])
    // The device flow (RFC 8628): the device authorization request and the polls of the token endpoint.
    package static let deviceAuthorization = ExchangeMatch("the device authorization", pathContains: "/devicecode")
    package static let devicePoll = ExchangeMatch("a device-code poll", pathContains: "/token", grantTypes: ["device_code"])
}
