import ExchangeKernel
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// One request of native authentication V2: the tenant (an external one), the JSON body of a HAL step,
/// the flow its continuation token names, and the answers' shape.
struct NativeAuthV2Request {
    let exchange: IdentityExchange
    /// nil when the path's tenant is not an external one: the API is External ID's only.
    let tenant: Tenant?
    /// The step's JSON object, read once; nil when the body is not one (or is larger than any step's).
    private let parsedBody: JSONValue?

    init(_ exchange: IdentityExchange) {
        self.exchange = exchange
        tenant = exchange.service.currentDirectory.tenant(matching: exchange.route.tenantSegment).flatMap { $0.servesNativeAuthentication ? $0 : nil }
        let bytes = exchange.request.body
        parsedBody = bytes.count <= NativeAuthRequest.longestAttributes * 2 ? LocatedJSON.object(body: bytes) : nil
    }

    var now: Date { exchange.now }
    var flows: NativeAuthFlows { exchange.service.nativeAuthFlows }

    /// Where FakeEntra's links point: `/{tenant id}/api/v2.0` (relative, as the clients resolve them
    /// against their authority; MSAL Android refuses absolute links to another host).
    func base(_ tenant: Tenant) -> String { "/\(tenant.id)/api/v2.0" }

    func link(_ tenant: Tenant, _ path: String) -> JSONValue { .object([("href", .string("\(base(tenant))/\(path)"))]) }

    /// The step's JSON object (each step's body is one).
    func body() throws(NativeAuthV2Error) -> JSONValue {
        guard let object = parsedBody else {
            throw NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 90100, "request body is empty or not valid.")
        }
        return object
    }

    func continuationToken() throws(NativeAuthV2Error) -> String {
        let body = try body()
        guard let token = (body["continuationToken"] ?? body["continuation_token"])?.string, !token.isEmpty else {
            throw NativeAuthV2Error.missing("continuationToken")
        }
        return token
    }

    func username() throws(NativeAuthV2Error) -> String {
        guard let name = try body()["username"]?.string, !name.isEmpty, name.utf8.count <= NativeAuthRequest.longestValue else {
            throw NativeAuthV2Error.missing("username")
        }
        return name
    }

    /// The V2 flow `token` names in this tenant.
    func flow(_ token: String, tenant: Tenant) throws(NativeAuthV2Error) -> NativeAuthFlow {
        do { return try flows.flow(presented: token, by: .v2(tenantID: tenant.id), now: now) } catch {
            switch error {
            case .expired: throw NativeAuthV2Error(status: 400, code: "invalidGrant", aadsts: 55112, "The continuationToken is expired.", innerCode: "invalidContinuationToken")
            case .invalid: throw .invalidContinuationToken
            }
        }
    }

    func user(named name: String, in tenant: Tenant) -> DirectoryUser? {
        exchange.service.currentDirectory.user(signInName: name, tenantID: tenant.id)
    }

    func user(id: String?) -> DirectoryUser? { id.flatMap { exchange.service.currentDirectory.user(id: $0) } }

    /// A sign-in's first-factor methods: the password first where the user has one (an earlier MSAL for
    /// iOS challenges the first method listed), then the code mailed to the address.
    func firstFactorMethods(for user: DirectoryUser, tenant: Tenant) -> [JSONValue] {
        var methods: [JSONValue] = []
        if !user.password.isEmpty, !tenant.externalUserFlow.signsInWithCode(user) {
            methods.append(.object([("id", .string("password")), ("type", .string("password")),
                                    ("_links", .object([("challenge", link(tenant, "auth/methods/password/password/challenge"))]))]))
        }
        if let mail = user.mail { methods.append(codeMethod(tenant, type: "email", id: "email", hint: NativeAuthEndpoints.masked(mail))) }
        return methods
    }

    /// A method that sends a code, as `_embedded.methods` lists it, with its `challenge` link.
    func codeMethod(_ tenant: Tenant, type: String, id: String, hint: String) -> JSONValue {
        .object([("id", .string(id)), ("type", .string(type)), ("hint", .string(hint)),
                 ("_links", .object([("challenge", link(tenant, "auth/methods/\(type)/\(id)/challenge"))]))])
    }

    /// A HAL answer for `flow` where `event` leaves it: its new continuation token first, then `members`.
    func hal(_ flow: NativeAuthFlow, on event: NativeAuthFlow.Event, _ members: [(String, JSONValue)]) throws(NativeAuthV2Error) -> HTTPResponse {
        guard let token = flows.advance(flow, on: event, now: now) else { throw .invalidContinuationToken }
        return NativeAuthResponse.json([("continuationToken", .string(token))] + members)
    }

    func hal(_ flow: NativeAuthFlow, on event: NativeAuthFlow.Event, _ members: KeyValuePairs<String, JSONValue>) throws(NativeAuthV2Error) -> HTTPResponse {
        try hal(flow, on: event, members.map { ($0.key, $0.value) })
    }

    /// The journey is done: back to the authorization challenge with this token for the code.
    func continueJourney(_ flow: NativeAuthFlow, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        try hal(flow, on: .finished, [
            "state": .string("continue"),
            "_links": .object([("continue", .object([("href", .string("/\(tenant.id)/oauth2/v2.0/authorize-challenge"))]))]),
        ])
    }

    /// The journey needs what the app cannot do natively: it goes on in a browser. msal-browser
    /// (ResponseHandlerV2), MSAL for iOS (MSALNativeAuthV2HALResponseSerializer) and MSAL for Android
    /// (NativeAuthV2HalApiResponse) all read this state as "browser required".
    func webFallback(_ flow: NativeAuthFlow) throws(NativeAuthV2Error) -> HTTPResponse {
        try hal(flow, on: .handedToBrowser, ["state": .string("webFallbackRequired")])
    }

}

/// A refusal of a V2 request: of a step, in the nested shape the `/api` steps answer, or of a check V2
/// shares with V1 (the client, the method, the account's state), in V1's flat shape, as those are made
/// before a step is reached.
enum NativeAuthV2Error: Error {
    case step(NativeAuthV2StepRefusal)
    case shared(NativeAuthError)

    init(_ shared: NativeAuthError) { self = .shared(shared) }

    init(status: Int, code: String, aadsts: Int, _ text: String, innerCode: String? = nil, details: [(attribute: String, code: String, message: String)] = []) {
        self = .step(NativeAuthV2StepRefusal(status: status, code: code, aadsts: aadsts, text: text, innerCode: innerCode, details: details))
    }

    static let invalidContinuationToken = NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 55200, "The continuationToken is invalid.", innerCode: "invalidContinuationToken")
    static let invalidPassword = NativeAuthV2Error(status: 400, code: "invalidGrant", aadsts: 50126, "Error validating credentials due to invalid username or password.", innerCode: "invalidUserNameOrPassword")
    static let invalidCode = NativeAuthV2Error(status: 400, code: "invalidGrant", aadsts: 50181, "Unable to validate the otp.", innerCode: "invalidOneTimeCode")

    static func userNotFound(_ tenant: Tenant) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 50034, IdentityError.nativeAuthUserNotFound(tenant: tenant.primaryDomain).message)
    }

    static let userAlreadyExists = NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 1003037, "An account with this email address may already exist.",
                                                     details: [(attribute: "email", code: "userAlreadyExists", message: "An account with this identifier already exists.")])

    static func passwordTooWeak(_ text: String) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 120002, text, innerCode: "passwordTooWeak")
    }

    static func missing(_ name: String) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 90100, "\(name) parameter is empty or not valid.")
    }

    static func attributes(_ inner: String, _ details: [(String, String, String)]) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 1002027, "Some of the collected attributes were invalid.", innerCode: inner,
                          details: details.map { (attribute: $0.0, code: $0.1, message: $0.2) })
    }

    func response(in trace: TraceContext) -> HTTPResponse {
        switch self {
        case .step(let refusal): refusal.response(in: trace)
        case .shared(let refusal): refusal.response(in: trace)
        }
    }
}

/// A step's refusal (`{"error": {"code", "message", "innerError", "correlationId", "traceId", "timestamp"}}`,
/// msal-browser's ErrorResponsesV2). The AADSTS code is in the message, where MSAL for iOS and Android
/// read it; `correlation_id` is there too, the spelling MSAL for iOS reads.
struct NativeAuthV2StepRefusal {
    var status: Int
    var code: String
    /// The AADSTS number its message starts with.
    var aadsts: Int
    var text: String
    var innerCode: String?
    var details: [(attribute: String, code: String, message: String)]

    /// `AADSTS50126: Error validating credentials…`
    var message: String { "AADSTS\(aadsts): \(text)" }

    /// The refusals whose nested codes a scenario's AADSTS number takes, as the steps answer them.
    static let byAADSTS: [Int: NativeAuthV2StepRefusal] = {
        var known: [Int: NativeAuthV2StepRefusal] = [:]
        for error in [NativeAuthV2Error.invalidContinuationToken, .invalidPassword, .invalidCode, .userAlreadyExists, .passwordTooWeak("")] {
            if case .step(let refusal) = error { known[refusal.aadsts] = refusal }
        }
        return known
    }()

    /// A scenario's error on a step, in the step's shape: the nested code and inner code the step answers
    /// with that AADSTS number (`invalidGrant`/`invalidOneTimeCode` for 50181), else `invalidRequest`;
    /// the scenario's status and wording.
    static func scripted(_ error: IdentityError) -> NativeAuthV2StepRefusal {
        var refusal = byAADSTS[error.code] ?? NativeAuthV2StepRefusal(status: 400, code: "invalidRequest", aadsts: error.code, text: "", innerCode: nil, details: [])
        refusal.status = error.status
        refusal.aadsts = error.code
        refusal.text = error.message
        refusal.details = refusal.details.map { ($0.attribute, $0.code, error.message) }
        return refusal
    }

    func response(in trace: TraceContext) -> HTTPResponse {
        var inner: [(String, JSONValue)] = []
        if let innerCode { inner.append(("code", .string(innerCode))) }
        if !details.isEmpty {
            inner.append(("details", .array(details.map { .object([("attributeIds", .strings([$0.attribute])), ("code", .string($0.code)), ("message", .string($0.message))]) })))
        }
        var error: [(String, JSONValue)] = [("code", .string(code)), ("message", .string(message))]
        if !inner.isEmpty { error.append(("innerError", .object(inner))) }
        error += [("correlationId", .string(trace.correlationID)), ("correlation_id", .string(trace.correlationID)),
                  ("traceId", .string(trace.traceID)), ("timestamp", .string(trace.formattedTimestamp))]
        return NativeAuthResponse.json([("error", .object(error))], status: HTTPStatus(status)).stating(StatedError(code: "AADSTS\(aadsts)"))
    }
}
