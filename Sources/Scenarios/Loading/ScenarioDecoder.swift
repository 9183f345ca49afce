import EntraHTTP
import ExchangeKernel
import FoundationGaps
import IdentityPlatform
import LocatedJSON

/// Turns a schema-valid scenario document into a `Scenario`, reporting what the schema cannot check.
struct ScenarioDecoder {
    var reader: JSONReader
    let baseDirectory: Directory

    init(file: String, baseDirectory: Directory) {
        reader = JSONReader(file: file)
        self.baseDirectory = baseDirectory
    }

    mutating func decode(_ root: JSONValue) -> Scenario? {
        var directoryReader = DirectoryEntryDecoder(reader: reader, base: baseDirectory)
        let additions = root["directory"].map { directoryReader.additions($0, path: "/directory") } ?? DirectoryAdditions()
        reader = directoryReader.reader
        var rules: [Rule] = []
        for (index, ruleValue) in (root["rules"]?.array ?? []).enumerated() {
            if let rule = decodeRule(ruleValue, path: JSONReader.pointer("/rules", index)) { rules.append(rule) }
        }
        guard reader.problems.isEmpty, let name = root["name"]?.string, let description = root["description"]?.string else { return nil }
        return Scenario(name: name, description: description, directory: additions,
                        clockOffset: root["clock"]?["offsetSeconds"]?.number?.double ?? 0, rules: rules, source: reader.file)
    }

    private mutating func decodeRule(_ value: JSONValue, path: String) -> Rule? {
        let match = value["match"].map { decodeMatch($0, path: JSONReader.pointer(path, "match")) } ?? RuleMatch()
        var actions: [RuleAction] = []
        let actionPath = JSONReader.pointer(path, "action")
        if let list = value["action"]?.array {
            for (index, element) in list.enumerated() { actions += decodeAction(element, path: JSONReader.pointer(actionPath, index)) }
        } else if let single = value["action"] {
            actions = decodeAction(single, path: actionPath)
        }
        let terminals = actions.filter(\.isTerminal)
        if terminals.count > 1, let actionValue = value["action"] {
            reader.report("a rule may answer the request only once, found \(terminals.map(\.fileName).joined(separator: " and ")) (split them into rules with nth or times)", at: actionValue, path: actionPath)
        }
        // Only native authentication's endpoints hand a journey to the browser; elsewhere the rule would fire unanswered.
        if case .browserRequired? = terminals.first, match.endpoints != [.nativeauth], let actionValue = value["action"] {
            reader.report("browserRequired is native authentication's answer: match \"endpoint\": \"nativeauth\" alone", at: actionValue, path: actionPath)
        }
        if let answer = terminals.first, let actionValue = value["action"], !match.endpoints.isEmpty {
            let graphOnly = match.endpoints.allSatisfy { $0 == .graph }
            let graphAnswer: Bool = switch answer {
            case .graphError, .claimsChallenge: true
            default: false
            }
            if graphOnly, case .oauthError = answer {
                reader.report("Microsoft Graph does not answer with OAuth errors: use graphError or claimsChallenge", at: actionValue, path: actionPath)
            } else if graphAnswer, !match.endpoints.contains(.graph) {
                reader.report("\(answer.fileName) is a Microsoft Graph answer, but \"endpoint\" excludes graph", at: actionValue, path: actionPath)
            }
        }
        var times = FiringLimit.once
        if let timesValue = value["times"] {
            if let count = timesValue.number?.int64 { times = .times(Int(count)) }
            else if timesValue.string == "always" { times = .always }
        }
        if let nth = match.nth, case .times(let count) = times, count > 1, let timesValue = value["times"] {
            reader.report("\"times\" is \(count) but \"nth\": \(nth) matches a single request", at: timesValue, path: JSONReader.pointer(path, "times"))
        }
        return Rule(note: value["note"]?.string, match: match, actions: actions, times: times)
    }

    private mutating func decodeMatch(_ value: JSONValue, path: String) -> RuleMatch {
        var match = RuleMatch()
        match.endpoints = reader.stringOrList(value["endpoint"]).compactMap(EndpointKind.init(rawValue:))
        match.method = value["method"]?.string
        if let pathValue = value["path"] { match.path = pattern(pathValue, path: JSONReader.pointer(path, "path")) }
        match.graphResources = reader.stringOrList(value["graphResource"])
        match.grantTypes = reader.stringOrList(value["grantType"])
        match.clientIDs = reader.stringOrList(value["clientId"])
        match.user = value["user"]?.string
        match.tenant = value["tenant"]?.string
        match.policy = value["policy"]?.string
        match.scopes = reader.strings(value, "scopes")
        match.lacksScopes = reader.strings(value, "lacksScopes")
        match.parameters = conditions(value["parameters"], path: JSONReader.pointer(path, "parameters"))
        match.headers = conditions(value["headers"], path: JSONReader.pointer(path, "headers"))
        match.nth = reader.int(value, "nth")
        match.after = reader.int(value, "after")
        if match.nth != nil, match.after != nil, let member = value.member("after") {
            reader.report("give either \"nth\" or \"after\", not both", atKeyOf: member, path: JSONReader.pointer(path, "after"))
        }
        if let windowValue = value["window"] {
            let from = windowValue["from"].flatMap(bound), until = windowValue["until"].flatMap(bound)
            match.window = TimeWindow(from: from, until: until)
            if case .sinceStart(let start)? = from, case .sinceStart(let end)? = until, end <= start {
                reader.report("the window ends (\(end) s) before it starts (\(start) s)", at: windowValue, path: JSONReader.pointer(path, "window"))
            }
        }
        if !match.endpoints.isEmpty, !match.grantTypes.isEmpty, !match.endpoints.contains(.token), let member = value.member("grantType") {
            reader.report("\"grantType\" only occurs on the token endpoint, but \"endpoint\" excludes token", atKeyOf: member, path: JSONReader.pointer(path, "grantType"))
        }
        return match
    }

    private func bound(_ value: JSONValue) -> TimeWindow.Bound? {
        if let seconds = value.number?.double { return .sinceStart(seconds) }
        if let text = value.string, let date = ScenarioDates.parse(text) { return .instant(date) }
        return nil
    }

    private mutating func pattern(_ value: JSONValue, path: String) -> TextPattern? {
        do {
            if let glob = value.string { return try TextPattern(glob: glob) }
            if let regexValue = value["regex"], let regex = regexValue.string { return try TextPattern(regex: regex) }
        } catch {
            reader.report(error.message, at: value["regex"] ?? value, path: path)
        }
        return nil
    }

    private mutating func conditions(_ value: JSONValue?, path: String) -> [ValueCondition] {
        var result: [ValueCondition] = []
        for member in value?.members ?? [] {
            let memberPath = JSONReader.pointer(path, member.key)
            if let text = member.value.string {
                result.append(ValueCondition(name: member.key, test: .equals(text)))
            } else if let equals = member.value["equals"]?.string {
                result.append(ValueCondition(name: member.key, test: .equals(equals)))
            } else if let present = member.value["present"]?.bool {
                result.append(ValueCondition(name: member.key, test: .present(present)))
            } else if let regexValue = member.value["regex"], let source = regexValue.string {
                do { result.append(ValueCondition(name: member.key, test: .matches(try TextPattern(regex: source)))) }
                catch { reader.report(error.message, at: regexValue, path: JSONReader.pointer(memberPath, "regex")) }
            }
        }
        return result
    }

    /// The actions of one action object, in the order its members are written.
    private mutating func decodeAction(_ value: JSONValue, path: String) -> [RuleAction] {
        var actions: [RuleAction] = []
        for member in value.members ?? [] {
            let memberPath = JSONReader.pointer(path, member.key)
            let v = member.value
            switch member.key {
            case "oauthError": if let spec = oauthError(v, path: memberPath) { actions.append(.oauthError(spec)) }
            case "serviceError":
                let format = v["retryAfterFormat"]?.string.flatMap(ServiceErrorSpec.RetryAfterFormat.init(rawValue:)) ?? .seconds
                actions.append(.serviceError(ServiceErrorSpec(status: reader.int(v, "status") ?? 503, retryAfter: reader.int(v, "retryAfter"), message: v["message"]?.string, retryAfterFormat: format)))
                if let status = reader.int(v, "status"), status > 429, status < 500, let statusValue = v["status"] {
                    reader.report("\"status\" must be 429 or a 5xx status, found \(status)", at: statusValue, path: JSONReader.pointer(memberPath, "status"))
                }
            case "dropConnection": actions.append(.dropConnection)
            case "graphError":
                let code = v["code"]?.string ?? "generalException"
                actions.append(.graphError(GraphErrorSpec(status: reader.int(v, "status") ?? 400, code: code,
                                                          message: v["message"]?.string,
                                                          retryAfter: reader.int(v, "retryAfter"))))
            case "claimsChallenge": actions.append(.claimsChallenge(ClaimsChallengeSpec(claims: claimsText(v["claims"]))))
            case "response": if let canned = cannedResponse(v, path: memberPath) { actions.append(.response(canned)) }
            case "browserRequired": actions.append(.browserRequired(reason: v["reason"]?.string))
            case "declineScopes": actions.append(.declineScopes(reader.strings(value, member.key)))
            case "requireConsent": actions.append(.requireConsent(reader.strings(value, member.key)))
            case "requireMFA": actions.append(.requireMFA)
            case "tokenLifetimes":
                actions.append(.tokenLifetimes(TokenLifetimes(accessToken: reader.double(v, "accessToken"), refreshToken: reader.double(v, "refreshToken"), idToken: reader.double(v, "idToken"), refreshIn: reader.double(v, "refreshIn"))))
            case "tokenClaims":
                func claims(_ key: String) -> [String: JSONValue] {
                    Dictionary((v[key]?.members ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
                }
                actions.append(.tokenClaims(TokenClaims(accessToken: claims("accessToken"), idToken: claims("idToken"))))
            case "delay": actions.append(.delay(milliseconds: reader.int(value, member.key) ?? 0))
            case "passThrough": actions.append(.passThrough)
            case "redirectState": if let state = v.string { actions.append(.redirectState(state)) }
            case "deviceCodeInterval": if let seconds = reader.int(value, member.key) { actions.append(.deviceCodeInterval(seconds)) }
            case "discoveryIssuer": if let issuer = v.string { actions.append(.discoveryIssuer(issuer)) }
            case "rollSigningKey": actions.append(.rollSigningKey(keepPreviousFor: reader.double(v, "keepPreviousFor")))
            case "forgeTokens":
                // The schema's `tokenForgery` enum, the same names as TokenForgery's, refuses any other.
                if let both = v.string.flatMap(TokenForgery.init(rawValue:)) {
                    actions.append(.forgeTokens(accessToken: both, idToken: both))
                } else {
                    actions.append(.forgeTokens(accessToken: v["accessToken"]?.string.flatMap(TokenForgery.init(rawValue:)),
                                                idToken: v["idToken"]?.string.flatMap(TokenForgery.init(rawValue:))))
                }
            case "advanceClock": actions.append(.advanceClock(seconds: reader.double(value, member.key) ?? 0))
            default: break // the schema has reported it
            }
        }
        return actions
    }

    /// A response the transport can send as written: a final status (the schema keeps 200–599), no
    /// content where the status forbids it, header names that are tokens, values without control
    /// characters, and no framing header (the transport owns those; a wrong one would hang the client).
    private mutating func cannedResponse(_ value: JSONValue, path: String) -> CannedResponse? {
        let before = reader.problems.count
        let status = reader.int(value, "status") ?? 200
        let body = value["body"].map { $0.string ?? $0.compactText } ?? ""
        if HTTPFieldSyntax.forbidsContent(status: status), !body.isEmpty, let bodyValue = value["body"] {
            reader.report("a \(status) response carries no content: remove \"body\" or pick another status", at: bodyValue, path: JSONReader.pointer(path, "body"))
        }
        var headers: [(name: String, value: String)] = []
        for member in value["headers"]?.members ?? [] {
            guard let text = member.value.string else { continue }
            let memberPath = JSONReader.pointer(JSONReader.pointer(path, "headers"), member.key)
            if !HTTPFieldSyntax.isFieldName(member.key) {
                reader.report("\(JSONValue.quoted(member.key)) is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)", atKeyOf: member, path: memberPath)
            } else if HTTPFieldSyntax.isTransportOwned(member.key) {
                reader.report("\"\(member.key)\" is written by the server itself (framing): remove it", atKeyOf: member, path: memberPath)
            }
            if !HTTPFieldSyntax.isFieldValue(text) {
                reader.report("a header value cannot hold control characters (CR, LF, NUL…)", at: member.value, path: memberPath)
            }
            headers.append((name: member.key, value: text))
        }
        guard reader.problems.count == before else { return nil }
        return CannedResponse(status: status, headers: headers, body: body)
    }

    private func claimsText(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        return value.string ?? value.compactText
    }

    private mutating func oauthError(_ value: JSONValue, path: String) -> OAuthErrorSpec? {
        var family = ErrorFamily.aadsts
        var code = 0
        if let codeText = value["code"]?.string {
            family = codeText.hasPrefix("AADB2C") ? .aadb2c : .aadsts
            code = Int(codeText.dropFirst(6)) ?? 0
        }
        let known = code == 0 ? nil : family.catalogueEntry(code: code)
        guard let error = value["error"]?.string ?? known?.error else {
            let what = value["code"]?.string.map { "FakeEntra has no wording for \($0): give \"error\" and \"message\"" }
                ?? "give \"code\" (AADSTS… or AADB2C…) or \"error\""
            reader.report(what, at: value, path: path)
            return nil
        }
        if known == nil, value["message"] == nil, let codeValue = value["code"] {
            reader.report("FakeEntra has no wording for \(codeValue.string ?? ""): give \"message\" too", at: codeValue, path: JSONReader.pointer(path, "code"))
        }
        return OAuthErrorSpec(
            error: error, code: code, family: family, message: value["message"]?.string,
            suberror: value["suberror"]?.string ?? known?.suberror,
            errorSubcode: value["errorSubcode"]?.string, claims: claimsText(value["claims"]),
            status: reader.int(value, "status") ?? known?.explicitStatus, asPage: value["asPage"]?.bool ?? false
        )
    }
}

enum ScenarioDates {
    static func parse(_ text: String) -> Date? {
        InternetTimestamp.date(text)
    }
}
