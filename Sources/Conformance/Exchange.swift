package import Foundation
package import ExchangeKernel
import IdentityPlatform

/// One request the client sent and what it was answered: the evidence the judge reasons over.
///
/// The one place that reads journal entries: request facts from the entry, what the platform did from
/// its receipt (the error code it answered, the page it showed, the scenario rules that fired), so the
/// judge never reads a rendered page.
package struct Exchange: Sendable, Codable, Equatable {
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
    /// Response facts: `error`, `suberror`, `scope`, `refresh_token` (redacted), `interval` (device
    /// authorization), `issuer` (discovery), `retry-after`,
    /// `www-authenticate`, `location`; from the receipt `error_code` (`AADSTS65004`, `AADB2C90118`, a
    /// Graph code), `flow_step` (`sign_in`, `mfa`, `consent`…) and `rules` (indexes of the rules that fired).
    package var answer: [String: String]

    package init(id: Int, time: Date, method: String, path: String, kind: String, status: Int,
                parameters: [String: String] = [:], answer: [String: String] = [:]) {
        self.id = id
        self.time = time
        self.method = method
        self.path = path
        self.kind = kind
        self.status = status
        self.parameters = parameters
        self.answer = answer
    }

    package init(_ entry: JournalEntry) {
        var parameters: [String: String] = [:]
        for (name, value) in entry.query where parameters[name] == nil { parameters[name] = value }
        if let form = Self.object(entry.requestBody) {
            for (name, value) in form { if let text = value as? String { parameters[name] = text } }
        }
        var answer: [String: String] = [:]
        if let body = Self.object(entry.responseBody) {
            for key in ["error", "suberror", "scope", "refresh_token", "error_codes", "refresh_in", "expires_in", "interval", "issuer"] {
                if let text = body[key] as? String { answer[key] = text }
                if let number = body[key] as? NSNumber { answer[key] = number.stringValue }
                if let list = body[key] as? [Any] { answer[key] = list.map { "\($0)" }.joined(separator: ",") }
            }
            if let graph = body["error"] as? [String: Any], let code = graph["code"] as? String { answer["error"] = code }
        }
        for (name, value) in entry.responseHeaders {
            let lower = name.lowercased()
            guard ["retry-after", "www-authenticate", "location"].contains(lower) else { continue }
            answer[lower] = value
            if lower == "location", let components = URLComponents(string: value) {
                for item in components.queryItems ?? [] where ["error", "suberror", "error_subcode", "error_description"].contains(item.name) {
                    answer[item.name] = item.value ?? ""
                }
            }
        }
        let receipt = entry.receipt
        if let code = receipt.error { answer["error_code"] = code }
        if let flow = receipt.flow { answer["flow_step"] = flow.step }
        if !receipt.rules.isEmpty { answer["rules"] = receipt.rules.map { String($0.index) }.joined(separator: ",") }
        self.init(id: entry.id, time: entry.time, method: entry.method, path: entry.path, kind: entry.kind, status: entry.status,
                  parameters: parameters, answer: answer)
    }

    private static func object(_ json: String) -> [String: Any]? {
        guard json.hasPrefix("{") else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    }

    package var grantType: String? { parameters["grant_type"] }

    /// `POST /token grant_type=refresh_token → 400 invalid_grant/bad_token`.
    package var summary: String {
        var text = "\(method) \(Self.shortPath(path))"
        if let grantType { text += " grant_type=\(grantType.replacingOccurrences(of: "urn:ietf:params:oauth:grant-type:", with: ""))" }
        if kind == "authorize" || path.hasSuffix("/authorize"), let policy = parameters["p"] { text += " p=\(policy)" }
        text += " → \(status)"
        if let error = answer["error"] { text += " \(error)" + (answer["suberror"].map { "/\($0)" } ?? "") }
        if let code = answer["error_code"], !(answer["error"].map { code.hasSuffix($0) } ?? false) { text += " [\(code)]" }
        if let step = answer["flow_step"] { text += " (page \(step))" }
        if let retryAfter = answer["retry-after"] { text += " Retry-After: \(retryAfter)" }
        return text
    }

    /// Paths lose their tenant segment in summaries (`…/oauth2/v2.0/token`), which is the same in every case.
    static func shortPath(_ path: String) -> String {
        if let range = path.range(of: "/oauth2/") { return "…" + path[range.lowerBound...] }
        return path
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
    /// Each named answer fact must be present (nil value) or equal.
    package var answer: [String: String?] = [:]
    package var label: String

    package init(_ label: String, kinds: [String] = [], pathContains: String? = nil, grantTypes: [String] = [], statuses: ClosedRange<Int>? = nil,
                policy: String? = nil, parameters: [String: String?] = [:], answer: [String: String?] = [:]) {
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
        for (name, text) in parameterContains {
            guard let actual = exchange.parameters[name], actual.range(of: text, options: .caseInsensitive) != nil else { return false }
        }
        for (name, value) in answer {
            guard let actual = exchange.answer[name] else { return false }
            if let value, actual.caseInsensitiveCompare(value) != .orderedSame { return false }
        }
        return true
    }

    package var description: String { label }

    /// "no token request", "no code redemption": the label without its article after "no" (labels
    /// carry one, "a token request", to read well elsewhere).
    package var absence: String {
        let article = ["a ", "an ", "the "].first { label.lowercased().hasPrefix($0) }
        return "no " + (article.map { String(label.dropFirst($0.count)) } ?? label)
    }

    /// The same match, restricted to some statuses.
    package func answered(_ statuses: ClosedRange<Int>, _ label: String? = nil) -> ExchangeMatch {
        var copy = self
        copy.statuses = statuses
        copy.label = label ?? "\(self.label) answered \(statuses.lowerBound == statuses.upperBound ? "\(statuses.lowerBound)" : "\(statuses)")"
        return copy
    }

    package func with(answer name: String, _ value: String? = nil, label: String) -> ExchangeMatch {
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

    package func with(parameter name: String, _ value: String? = nil, label: String) -> ExchangeMatch {
        var copy = self
        copy.parameters[name] = .some(value)
        copy.label = label
        return copy
    }

    // Token endpoint requests (Entra and B2C alike).
    package static let tokenRequest = ExchangeMatch("a token request", pathContains: "/token")
    package static let refresh = ExchangeMatch("a refresh-token request", pathContains: "/token", grantTypes: ["refresh_token"])
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
