import EntraHTTP
import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
import LocatedJSON

package struct HARImportError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// Turns a HAR 1.2 capture of a real client talking to login.microsoftonline.com, *.b2clogin.com and
/// graph.microsoft.com into an editable scenario: each captured request becomes a rule matching the
/// n-th request of its kind, answering with the captured failure (status, error, Retry-After,
/// WWW-Authenticate, delay) or letting FakeEntra answer when the capture succeeded, since tokens
/// are re-minted with FakeEntra's own keys. Personal data is replaced by demo data.
package enum HARImporter {
    /// Hosts whose traffic is replayed; everything else in the capture is ignored. Loopback hosts are
    /// FakeEntra itself (`fakeentra journal --har`), so its own exports replay too.
    static func isReplayed(host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h.hasPrefix("127.") || h == "::1" || h == "[::1]" { return true }
        return ["login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "login.live.com", "sts.windows.net", "graph.microsoft.com"].contains(h)
            || h.hasSuffix(".b2clogin.com") || h.hasPrefix("login.microsoftonline.")
    }

    /// Server latency (HAR `timings.wait`) at or above this becomes a `delay` action; below it is noise.
    static let delayThresholdMilliseconds = 1000

    /// A kebab-case scenario name from a capture's file name: `Sign-in Failure (2).har` → `sign-in-failure-2`.
    package static func scenarioName(fromFile path: String) -> String {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.lowercased()
        let words = base.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
        return words.isEmpty ? "replayed-capture" : words.joined(separator: "-")
    }

    /// The scenario file text (pretty-printed JSON, stable member order). `routes` are the application's
    /// with every tenant's `?p=` taken as B2C's, as on the real service whose recordings these are.
    package static func convert(har bytes: [UInt8], name: String, source: String = "capture.har", routes: RouteResolver) throws(HARImportError) -> String {
        try convert(.bytes(bytes), name: name, source: source, routes: routes)
    }

    /// The scenario file text for a capture read entry by entry: once for the client ids to keep, once
    /// for the identities to replace, once for the rules. Only the scenario's own text is held whole.
    package static func convert(_ capture: HARSource, name: String, source: String = "capture.har", routes: RouteResolver) throws(HARImportError) -> String {
        guard name.range(of: "^[a-z0-9]+(-[a-z0-9]+)*$", options: .regularExpression) != nil else {
            throw HARImportError(message: "scenario name \"\(name)\" must be kebab-case (a-z, 0-9, single dashes)")
        }
        func forEachExchange(_ body: (CapturedExchange) throws(HARImportError) -> Void) throws(HARImportError) {
            try capture.forEachEntry(source: source) { (bytes: [UInt8]) throws(HARImportError) in
                guard let entry = CapturedExchange.jsonObject(bytes) else {
                    throw HARImportError(message: "\(source): not a HAR file (an entry of log.entries is no JSON object)")
                }
                if let exchange = CapturedExchange(entry: entry, routes: routes), isReplayed(host: exchange.host) { try body(exchange) }
            }
        }

        var clientIDs = Set<String>()
        var capturedCount = 0
        var firstDate = ""
        try forEachExchange { exchange in
            if capturedCount == 0 { firstDate = exchange.startedDateTime }
            capturedCount += 1
            if let clientID = exchange.facts.clientID { clientIDs.insert(clientID) }
        }
        guard capturedCount > 0 else {
            throw HARImportError(message: "\(source): no request to login.microsoftonline.com, *.b2clogin.com or graph.microsoft.com")
        }
        var anonymizer = Anonymizer(keeping: clientIDs)
        try forEachExchange { $0.learnIdentities(into: &anonymizer) }

        var counts: [String: Int] = [:]
        var rulesText = ""
        var failures = 0
        var reasons: [String] = []
        var index = 0
        try forEachExchange { exchange in
            index += 1
            let (rule, note) = Self.rule(for: exchange, counts: &counts, failures: &failures, anonymizer: &anonymizer)
            // Each rule is checked on its own, in a one-rule file: a capture can hold answers no scenario
            // may express (found by fuzzing: an `error=` that is no OAuth error code). Refuse, naming each
            // request, rather than write a file the scenario loader rejects.
            if reasons.count < 100, case .failure(let problems) = ScenarioLibrary.parse(Array((head(name: name, description: "One captured request.") + rule.pretty(indent: 2) + "\n  ]\n}\n").utf8), file: "\(name).json") {
                reasons += problems.problems.map { "request \(index) (\(note)): \($0.message)" }
            }
            rulesText += (rulesText.isEmpty ? "" : ",\n    ") + rule.pretty(indent: 2)
        }
        guard reasons.isEmpty else {
            throw HARImportError(message: "\(source): cannot be replayed as a scenario:\n" + reasons.joined(separator: "\n"))
        }
        let description = "Replayed from \(source)\(firstDate.isEmpty ? "" : " (captured \(firstDate))"): \(capturedCount) request(s) to Entra ID, B2C or Microsoft Graph, \(failures) of them answered with the captured failure and the rest by FakeEntra, which re-mints tokens with its own keys. Personal data was replaced by demo data. Edit the notes to say which client behaviour this exercises and what a correct MSAL client ends with."
        return head(name: name, description: description) + rulesText + "\n  ]\n}\n"
    }

    /// The file up to its first rule, members in the order people read them.
    private static func head(name: String, description: String) -> String {
        let members = JSONValue.object([
            ("$schema", .string("../docs/schemas/scenario.schema.json")),
            ("name", .string(name)),
            ("description", .string(description)),
        ]).pretty()
        return members.dropLast(2) + ",\n  \"rules\": [\n    "
    }

    /// The rule answering the n-th request of this exchange's kind as it was answered in the capture.
    private static func rule(for exchange: CapturedExchange, counts: inout [String: Int], failures: inout Int, anonymizer: inout Anonymizer) -> (JSONValue, note: String) {
        let key = exchange.sequenceKey(anonymizer: &anonymizer)
        counts[key.id, default: 0] += 1
        var match = key.match
        match.append(("nth", .int(counts[key.id]!)))
        var actions = exchange.actions(anonymizer: &anonymizer)
        if actions.contains(where: { $0.0 != "passThrough" && $0.0 != "delay" }) { failures += 1 }
        if actions.isEmpty { actions = [("passThrough", .bool(true))] }
        let actionValue: JSONValue = actions.count == 1
            ? .object(actions)
            : .array(actions.map { (member: (String, JSONValue)) -> JSONValue in .object([member]) })
        let note = exchange.note(anonymizer: &anonymizer)
        return (.object([("note", .string(note)), ("match", .object(match)), ("action", actionValue)]), note)
    }
}

/// One HAR entry, read into what the importer needs.
struct CapturedExchange {
    var host: String
    var request: HTTPRequest
    var facts: RequestFacts
    var status: Int
    var responseHeaders: [(name: String, value: String)]
    var responseBody: String
    var waitMilliseconds: Int
    var startedDateTime: String

    init?(entry: JSONValue, routes: RouteResolver) {
        guard let request = entry["request"], let response = entry["response"], response.members != nil,
              let method = request["method"]?.string, let urlText = request["url"]?.string,
              let url = URLComponents(string: urlText), let host = url.host else { return nil }
        self.host = host
        var headers = HTTPHeaders()
        for header in CapturedExchange.objects(request["headers"]) {
            if let name = header["name"]?.string, let value = header["value"]?.string, !name.hasPrefix(":") { headers.add(name, value) }
        }
        headers.set("Host", host)
        var body: [UInt8] = []
        if let post = request["postData"], post.members != nil {
            if let text = post["text"]?.string {
                body = Array(text.utf8)
            } else {
                let params = CapturedExchange.objects(post["params"]).compactMap { p in p["name"]?.string.map { ($0, p["value"]?.string ?? "") } }
                body = Array(FormParameters(params).encoded.utf8)
            }
            if !headers.contains("Content-Type"), let mime = post["mimeType"]?.string { headers.set("Content-Type", mime) }
        }
        let target = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        self.request = HTTPRequest(method: method.uppercased(), target: target, headers: headers, body: body)
        facts = RequestFacts.classify(self.request, routes: routes)
        status = response["status"]?.int ?? 0
        responseHeaders = CapturedExchange.objects(response["headers"]).compactMap { h in
            guard let name = h["name"]?.string, let value = h["value"]?.string else { return nil }
            return (name: name, value: value)
        }
        let content = response["content"]
        var text = content?["text"]?.string ?? ""
        if content?["encoding"]?.string == "base64", let data = Data(base64Encoded: text) { text = String(decoding: data, as: UTF8.self) }
        responseBody = text
        // A scenario delay is at most 10 minutes; any number a capture holds must convert without trapping.
        let wait = entry["timings"]?["wait"]?.double ?? 0
        waitMilliseconds = wait.isFinite ? Int(min(max(wait, 0), 600_000)) : 0
        startedDateTime = entry["startedDateTime"]?.string ?? ""
    }

    /// A JSON object as captures and the services they record write it, read leniently (a repeated
    /// member keeps its last value); nil for any other JSON or text.
    static func jsonObject(_ bytes: some Collection<UInt8>) -> JSONValue? {
        LocatedJSON.object(lenientBody: bytes, source: "capture")
    }

    /// The elements of one of HAR's lists of objects (`headers`, `params`): none when one of them is not
    /// an object, as the list is then not HAR's.
    private static func objects(_ list: JSONValue?) -> [JSONValue] {
        guard let elements = list?.array, elements.allSatisfy({ $0.members != nil }) else { return [] }
        return elements
    }

    func header(_ name: String) -> String? {
        responseHeaders.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var jsonBody: JSONValue? { Self.jsonObject(responseBody.utf8) }

    /// Tenant ids and user object ids, found in the token response's client_info and the tenant segment.
    func learnIdentities(into anonymizer: inout Anonymizer) {
        if let segment = facts.tenantSegment, segment.count == 36 { anonymizer.learn(tenantID: segment) }
        if let clientInfo = jsonBody?["client_info"]?.string,
           let data = Data(base64Encoded: Self.padded(clientInfo)),
           let info = Self.jsonObject(data) {
            if let utid = info["utid"]?.string { anonymizer.learn(tenantID: utid) }
            if let uid = info["uid"]?.string { anonymizer.learn(userID: uid) }
        }
    }

    static func padded(_ base64URL: String) -> String {
        var s = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return s
    }

    /// Which requests count together for `nth`: same endpoint kind, same grant type, same Graph path.
    func sequenceKey(anonymizer: inout Anonymizer) -> (id: String, match: [(String, JSONValue)]) {
        var match: [(String, JSONValue)] = [("endpoint", .string(facts.kind.rawValue))]
        var id = facts.kind.rawValue
        if facts.kind == .graph {
            let path = anonymizer.scrub(facts.path)
            match.append(("method", .string(facts.method)))
            match.append(("path", .string(path)))
            id += " \(facts.method) \(path)"
        }
        if let grant = facts.grantType {
            let short = grant.split(separator: ":").last.map(String.init) ?? grant
            match.append(("grantType", .string(short)))
            id += " " + short
        }
        if let policy = facts.policy {
            match.append(("policy", .string(policy)))
            id += " " + policy.lowercased()
        }
        return (id, match)
    }

    func note(anonymizer: inout Anonymizer) -> String {
        let path = anonymizer.scrub(request.rawPath)
        return "\(request.method) \(host)\(path) → \(status == 0 ? "no response" : String(status))"
    }

    /// The captured answer as actions; empty when the capture succeeded (FakeEntra answers).
    func actions(anonymizer: inout Anonymizer) -> [(String, JSONValue)] {
        var actions: [(String, JSONValue)] = []
        if waitMilliseconds >= HARImporter.delayThresholdMilliseconds { actions.append(("delay", .int(waitMilliseconds))) }
        if status == 0 { return actions + [("dropConnection", .bool(true))] }
        let retryAfter = header("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if facts.kind == .graph {
            if let challenge = header("WWW-Authenticate"), challenge.contains("insufficient_claims") {
                return actions + [("claimsChallenge", .object(claimsMember(challenge)))]
            }
            guard status >= 400 else { return actions }
            if status == 429 || status >= 500 {
                var spec: [(String, JSONValue)] = [("status", .int(status))]
                if let retryAfter { spec.append(("retryAfter", .int(retryAfter))) }
                return actions + [("serviceError", .object(spec))]
            }
            let error = jsonBody?["error"]
            var spec: [(String, JSONValue)] = [("status", .int(status)), ("code", .string(error?["code"]?.string ?? "generalException"))]
            if let message = error?["message"]?.string { spec.append(("message", .string(anonymizer.scrub(message)))) }
            if let retryAfter { spec.append(("retryAfter", .int(retryAfter))) }
            return actions + [("graphError", .object(spec))]
        }
        if status == 429 || status >= 500 {
            var spec: [(String, JSONValue)] = [("status", .int(status))]
            if let retryAfter { spec.append(("retryAfter", .int(retryAfter))) }
            return actions + [("serviceError", .object(spec))]
        }
        if let redirectError = redirectError(anonymizer: &anonymizer) { return actions + [("oauthError", .object(redirectError))] }
        if status >= 400, let body = jsonBody, body["error"]?.string != nil {
            let values = Dictionary(body.stringMembers.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            return actions + [("oauthError", .object(oauthError(from: values, codes: body["error_codes"]?.ints, anonymizer: &anonymizer)))]
        }
        guard status >= 400 else { return actions }
        // Something FakeEntra has no model for: replay it literally.
        var headers: [(String, JSONValue)] = []
        for name in ["Content-Type", "Retry-After", "WWW-Authenticate"] {
            if let value = header(name) { headers.append((name, .string(value))) }
        }
        var canned: [(String, JSONValue)] = [("status", .int(status))]
        if !headers.isEmpty { canned.append(("headers", .object(headers))) }
        canned.append(("body", .string(anonymizer.scrub(responseBody))))
        return actions + [("response", .object(canned))]
    }

    /// An /authorize answer that redirects back with `error=`, in the query or the fragment.
    private func redirectError(anonymizer: inout Anonymizer) -> [(String, JSONValue)]? {
        guard (300..<400).contains(status), let location = header("Location"),
              let parameters = Receipt.RedirectError.parameters(location: location), parameters["error"] != nil else { return nil }
        var values: [String: String] = [:]
        for name in ["error", "error_description", "suberror", "error_subcode", "claims"] { values[name] = parameters[name] }
        return oauthError(from: values, codes: nil, anonymizer: &anonymizer)
    }

    /// `AADSTS50076: message Trace ID: …` (or the lines joined by CRLF) → code and message without the trace lines.
    private func oauthError(from values: [String: String], codes: [Int]?, anonymizer: inout Anonymizer) -> [(String, JSONValue)] {
        var spec: [(String, JSONValue)] = [("error", .string(values["error"] ?? "invalid_request"))]
        var description = values["error_description"] ?? ""
        var code: String?
        if let match = description.range(of: "^(AADSTS|AADB2C)[0-9]+", options: .regularExpression) {
            code = String(description[match])
            description = String(description[match.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: ": "))
        } else if let first = codes?.first {
            code = "AADSTS\(first)"
        }
        if let trailer = description.range(of: "\\s+(Trace ID|Correlation ID|Timestamp): ", options: .regularExpression) {
            description = String(description[..<trailer.lowerBound])
        }
        if let code { spec.append(("code", .string(code))) }
        if let suberror = values["suberror"] { spec.append(("suberror", .string(suberror))) }
        if let subcode = values["error_subcode"] { spec.append(("errorSubcode", .string(subcode))) }
        if let claims = values["claims"] { spec.append(("claims", .string(claims))) }
        let defaultStatus = values["error"] == "invalid_client" ? 401 : 400
        if status >= 400, status != defaultStatus { spec.append(("status", .int(status))) }
        if !description.isEmpty { spec.append(("message", .string(anonymizer.scrub(description)))) }
        return spec
    }

    private func claimsMember(_ challenge: String) -> [(String, JSONValue)] {
        guard let range = challenge.range(of: "claims=\"[^\"]+\"", options: .regularExpression) else { return [] }
        let encoded = challenge[range].dropFirst(8).dropLast()
        guard let data = Data(base64Encoded: Self.padded(String(encoded))), let text = String(data: data, encoding: .utf8) else { return [] }
        return [("claims", .string(text))]
    }
}
