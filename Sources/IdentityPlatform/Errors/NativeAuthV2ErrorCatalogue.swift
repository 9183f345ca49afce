import ExchangeKernel
import EntraHTTP
import LocatedJSON

/// A refusal of a V2 request: of a step, in the nested shape the `/api` steps answer, or of a check V2
/// shares with V1 (the client, the method, the account's state), in V1's flat shape, as those are made
/// before a step is reached.
enum NativeAuthV2Error: Error {
    case step(NativeAuthV2StepRefusal)
    case shared(NativeAuthError)

    init(_ shared: NativeAuthError) { self = .shared(shared) }

    private init(status: Int, code: String, aadsts: Int, _ text: String, innerCode: String? = nil, details: [(attribute: String, code: String, message: String)] = []) {
        self = .step(NativeAuthV2StepRefusal(status: status, code: code, aadsts: aadsts, text: text, innerCode: innerCode, details: details))
    }

    static let invalidContinuationToken = NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 55200, "The continuationToken is invalid.", innerCode: "invalidContinuationToken")
    static let expiredContinuationToken = NativeAuthV2Error(status: 400, code: "invalidGrant", aadsts: 55112, "The continuationToken is expired.", innerCode: "invalidContinuationToken")
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

    static let unreadableBody = NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 90100, "request body is empty or not valid.")

    static func missing(_ name: String) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: 90100, "\(name) parameter is empty or not valid.")
    }

    /// A password the tenant's policy refuses, submitted with sign-up's attributes: named as the attribute it is.
    static func passwordAttributeRefused(_ text: String) -> NativeAuthV2Error {
        attributes("attributeValidationError", [("password", "passwordPolicyViolation", text)])
    }

    /// A refusal of the rule V2 shares with V1 and the pages (a password change the account or the policy
    /// refuses), in the step's shape with V1's code, wording and suberror.
    static func stepRefusal(_ shared: NativeAuthError) -> NativeAuthV2Error {
        NativeAuthV2Error(status: 400, code: "invalidRequest", aadsts: shared.error.code, shared.error.message, innerCode: shared.error.suberror)
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
