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
            throw NativeAuthV2Error.unreadableBody
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
            case .expired: throw .expiredContinuationToken
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
