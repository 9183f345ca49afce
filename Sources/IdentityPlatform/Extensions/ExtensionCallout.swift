package import ExchangeKernel
import FoundationGaps
package import LocatedJSON

/// Where a callout goes: the parts of `targetUrl`.
package struct ExtensionEndpoint: Sendable, Equatable {
    package var secure: Bool
    package var host: String
    package var port: Int
    /// Path and query.
    package var target: String

    /// `https://host[:port]/path?query`, or `http://` to a loopback host (a developer's function running
    /// locally; the service itself calls https only).
    package init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, components.user == nil, components.fragment == nil else { return nil }
        switch scheme {
        case "https": secure = true
        case "http": secure = false
        default: return nil
        }
        self.host = host
        port = components.port ?? (secure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    package var isLoopback: Bool { ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) }
}

/// What came back from one attempt.
package enum ExtensionTransportResult: Sendable, Equatable {
    case answered(status: Int, contentType: String?, body: [UInt8])
    case timedOut
    /// More than `ExtensionCallout.largestResponse` bytes.
    case tooLarge
    case unreachable(String)
}

/// The network under the callouts: a POST with a deadline. The server's is an HTTP client
/// (`ExtensionHTTPTransport`); tests script the endpoint's answers.
package protocol ExtensionTransport: Sendable {
    func post(to endpoint: ExtensionEndpoint, headers: [(String, String)], body: [UInt8], timeout: Duration) -> ExtensionTransportResult
}

/// Where no transport was given (a service built for a unit test of something else): every callout fails
/// as an unreachable endpoint would.
package struct UnreachableExtensionTransport: ExtensionTransport {
    package init() {}
    package func post(to endpoint: ExtensionEndpoint, headers: [(String, String)], body: [UInt8], timeout: Duration) -> ExtensionTransportResult {
        .unreachable("this service makes no outbound calls")
    }
}

/// A callout that failed, with the code the sign-in log's Authentication Events tab shows
/// (learn.microsoft.com/entra/identity-platform/custom-extension-troubleshoot, "Error codes reference").
/// The app sees only the generic AADSTS1100001; the journal keeps this.
package struct ExtensionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: Int, Sendable {
        case invalidHTTPStatus = 1003002
        case invalidResponseBody = 1003003
        case timedOut = 1003005
        case invalidContentType = 1003006
        case nullClaims = 1003007
        case emptyResponse = 1003009
        case invalidNumberOfActions = 1003010
        case invalidActionType = 1003012
        case incorrectTargetURL = 1003020
        case responseTooLarge = 1003024
        case claimsTooLarge = 1003025
        case emptyClaimKey = 1003026
        case connectionError = 1003027

        package var name: String {
            switch self {
            case .invalidHTTPStatus: "CustomExtensionInvalidHTTPStatus"
            case .invalidResponseBody: "CustomExtensionInvalidResponseBody"
            case .timedOut: "CustomExtensionTimedOut"
            case .invalidContentType: "CustomExtensionInvalidResponseContentType"
            case .nullClaims: "CustomExtensionNullClaimsResponse"
            case .emptyResponse: "CustomExtensionEmptyResponse"
            case .invalidNumberOfActions: "CustomExtensionInvalidNumberOfActions"
            case .invalidActionType: "CustomExtensionInvalidActionType"
            case .incorrectTargetURL: "CustomExtensionIncorrectTargetUrlFormat"
            case .responseTooLarge: "CustomExtensionResponseSizeExceeded"
            case .claimsTooLarge: "CustomExtensionResponseClaimsSizeExceeded"
            case .emptyClaimKey: "CustomExtensionNullOrEmptyClaimKeyNotSupported"
            case .connectionError: "CustomExtensionConnectionError"
            }
        }

        package var explanation: String {
            switch self {
            case .invalidHTTPStatus: "The custom extension API returned an invalid HTTP status code. Check that the API returns an accepted status code defined for that custom extension type."
            case .invalidResponseBody: "There was a problem parsing the custom extension's response body. Check that the API response body is in an acceptable schema for that custom extension type."
            case .timedOut: "The custom extension didn't respond within the allowed timeout. Check that your API is responding within the configured timeout for the custom extension."
            case .invalidContentType: "The custom extension's response content-type isn't 'application/json'."
            case .nullClaims: "The custom extension API responded with a null claims bag."
            case .emptyResponse: "The custom extension API response body was null when that wasn't expected."
            case .invalidNumberOfActions: "The custom extension API response included a different number of actions than those supported for that custom extension type."
            case .invalidActionType: "The custom extension returned an invalid action type defined for that custom extension type."
            case .incorrectTargetURL: "The target URL is in an improper format. It must be a valid URL that starts with https."
            case .responseTooLarge: "The custom extension response size exceeded the maximum limit."
            case .claimsTooLarge: "The total size of claims in the custom extension response exceeded the maximum limit."
            case .emptyClaimKey: "The custom extension API responded with claims containing null or empty key."
            case .connectionError: "Error connecting to the custom extension API."
            }
        }
    }

    package var code: Code
    /// What exactly was wrong, for the developer reading the journal.
    package var detail: String

    package init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "\(code.rawValue) \(code.name): \(code.explanation) \(detail)" }
}
/// Calls one extension for one event: the envelope, the bearer token, the deadline and retries, and the
/// answer's envelope checked down to its single action.
package struct ExtensionCallout {
    /// FakeEntra's bound on an extension's answer; the service's own is not published (1003024).
    package static let largestResponse = 64 * 1024

    package let transport: any ExtensionTransport
    package let strict: Bool

    package init(transport: any ExtensionTransport, strict: Bool) {
        self.transport = transport
        self.strict = strict
    }

    /// The request's envelope (custom-claims-provider-reference, "Request to the external REST API").
    package static func envelope(_ ext: CustomAuthenticationExtension, tenantID: String, sourceAppID: String, data: [(String, JSONValue)]) -> JSONValue {
        .object([
            ("type", .string("microsoft.graph.authenticationEvent.\(ext.event.rawValue)")),
            ("source", .string("/tenants/\(tenantID)/applications/\(sourceAppID)")),
            ("data", .object([
                ("@odata.type", .string("microsoft.graph.on\(ext.event.capitalized)CalloutData")),
                ("tenantId", .string(tenantID)),
                ("authenticationEventListenerId", .string(ext.listenerID)),
                ("customAuthenticationExtensionId", .string(ext.id)),
            ] + data)),
        ])
    }

    /// POSTs `payload` with `bearer`, retrying a timeout, a connection failure or a 5xx up to
    /// `maximumRetries` times; returns the single action of a well-formed answer, as `reading` takes it
    /// with the answer's `data` (where passwordSubmit's `nonce` is).
    /// `record` gets the call once, with its outcome: a bearer that could not be made, a refused answer
    /// and an action `reading` refuses alike.
    package func call<Value>(_ ext: CustomAuthenticationExtension, payload: JSONValue, bearer: Result<String, ExtensionFailure>,
                             record: (Receipt.ExtensionCall) -> Void,
                             reading: (_ action: JSONValue, _ data: JSONValue) -> Result<Value, ExtensionFailure>) -> Result<Value, ExtensionFailure> {
        let started = ContinuousClock.now
        var attempts = 0
        var lastStatus: Int?
        let outcome: Result<Value, ExtensionFailure> = {
            guard let endpoint = ExtensionEndpoint(url: ext.targetURL), endpoint.secure || (endpoint.isLoopback && !strict) else {
                return .failure(ExtensionFailure(.incorrectTargetURL, "targetUrl \(ext.targetURL)"))
            }
            let token: String
            switch bearer {
            case .success(let made): token = made
            case .failure(let failure): return .failure(failure)
            }
            let headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
            let body = payload.bytes
            while true {
                attempts += 1
                let result = transport.post(to: endpoint, headers: headers, body: body, timeout: .milliseconds(ext.timeoutMilliseconds))
                if case .answered(let status, _, _) = result { lastStatus = status }
                let retryable: Bool
                switch result {
                case .timedOut, .unreachable: retryable = true
                case .answered(let status, _, _): retryable = status >= 500
                case .tooLarge: retryable = false
                }
                if retryable && attempts <= ext.maximumRetries { continue }
                return Self.action(of: result, for: ext).flatMap { reading($0.action, $0.data) }
            }
        }()
        let elapsed = started.duration(to: .now).components
        record(Receipt.ExtensionCall(extensionID: ext.id, event: ext.event.rawValue, targetURL: Self.shown(ext.targetURL), attempts: attempts, httpStatus: lastStatus,
                                   milliseconds: Int(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000),
                                   failure: outcome.failure.map(\.description)))
        return outcome
    }

    /// An Azure Functions URL carries its key in the query (`?code=`): the journal keeps the rest.
    static func shown(_ url: String) -> String { String(url.prefix { $0 != "?" }) }

    /// The single action of an answer `{"data": {"@odata.type": "microsoft.graph.on<Event>ResponseData",
    /// "actions": [ … ]}}`, its type one the event knows (compared without case: Microsoft's own samples
    /// write `ShowValidationError` and `showValidationError`).
    static func action(of result: ExtensionTransportResult, for ext: CustomAuthenticationExtension) -> Result<(action: JSONValue, data: JSONValue), ExtensionFailure> {
        let status: Int, contentType: String?, body: [UInt8]
        switch result {
        case .timedOut: return .failure(ExtensionFailure(.timedOut, "no answer within \(ext.timeoutMilliseconds) ms"))
        case .unreachable(let reason): return .failure(ExtensionFailure(.connectionError, reason))
        case .tooLarge: return .failure(ExtensionFailure(.responseTooLarge, "more than \(largestResponse) bytes"))
        case .answered(let s, let c, let b): (status, contentType, body) = (s, c, b)
        }
        guard status == 200 else { return .failure(ExtensionFailure(.invalidHTTPStatus, "HTTP \(status); expected 200")) }
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else { return .failure(ExtensionFailure(.invalidContentType, "Content-Type \(contentType ?? "absent")")) }
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return .failure(ExtensionFailure(.emptyResponse, "an empty body")) }
        guard let parsed = LocatedJSON.parse(body: body) else { return .failure(ExtensionFailure(.invalidResponseBody, "the body is not JSON")) }
        if parsed.isNull { return .failure(ExtensionFailure(.emptyResponse, "the body is null")) }
        guard parsed.members != nil else { return .failure(ExtensionFailure(.invalidResponseBody, "the body is not a JSON object")) }
        let document = parsed
        let expectedData = "microsoft.graph.on\(ext.event.capitalized)ResponseData"
        guard let data = document["data"], data.members != nil else { return .failure(ExtensionFailure(.invalidResponseBody, "no \"data\" object")) }
        guard data.caseInsensitiveMember("@odata.type")?.string?.lowercased() == expectedData.lowercased() else {
            return .failure(ExtensionFailure(.invalidResponseBody, "data's @odata.type is not \"\(expectedData)\""))
        }
        guard let actions = data["actions"]?.array else { return .failure(ExtensionFailure(.invalidResponseBody, "no \"actions\" array")) }
        guard actions.count == 1 else { return .failure(ExtensionFailure(.invalidNumberOfActions, "\(actions.count) actions; expected 1")) }
        let type = actions[0].caseInsensitiveMember("@odata.type")?.string ?? ""
        let known = ext.event.actions.map { "microsoft.graph.\(ext.event.rawValue).\($0)".lowercased() }
        guard known.contains(type.lowercased()) else {
            return .failure(ExtensionFailure(.invalidActionType, "action \"\(type)\"; expected one of \(ext.event.actions.map { "microsoft.graph.\(ext.event.rawValue).\($0)" }.joined(separator: ", "))"))
        }
        return .success((actions[0], data))
    }
}

extension CustomAuthenticationExtension.Event {
    /// `TokenIssuanceStart`, as the `@odata.type` names build on it.
    package var capitalized: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// The actions an answer may carry, by the name after `microsoft.graph.<event>.`.
    package var actions: [String] {
        switch self {
        case .tokenIssuanceStart: ["provideClaimsForToken"]
        case .attributeCollectionStart: ["continueWithDefaultBehavior", "setPrefillValues", "showBlockPage"]
        case .attributeCollectionSubmit: ["continueWithDefaultBehavior", "modifyAttributeValues", "showBlockPage", "showValidationError"]
        case .passwordSubmit: ["MigratePassword", "UpdatePassword", "Retry", "Block"]
        }
    }
}

extension JSONValue {
    /// The member named `key` ignoring case (`@odata.type` and `@odata.Type` both appear in Microsoft's samples).
    func caseInsensitiveMember(_ key: String) -> JSONValue? {
        members?.first { $0.key.lowercased() == key.lowercased() }?.value
    }

    /// The action's name after `microsoft.graph.<event>.`, in the event's own spelling.
    package func actionName(for event: CustomAuthenticationExtension.Event) -> String? {
        guard let type = caseInsensitiveMember("@odata.type")?.string?.lowercased() else { return nil }
        return event.actions.first { "microsoft.graph.\(event.rawValue).\($0)".lowercased() == type }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
