import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON

extension Tenant {
    /// Only External ID tenants serve the native authentication API, V1 and V2; elsewhere its paths are
    /// unknown, as on login.microsoftonline.com.
    var servesNativeAuthentication: Bool { kind == .external }
}

/// One request to a native-authentication endpoint of an external tenant, with the checks and reads
/// every endpoint makes: a POSTed form, a client of the tenant, the flow its continuation token stands for.
struct NativeAuthRequest {
    let exchange: IdentityExchange
    let tenant: Tenant
    let clientID: String
    let form: FormParameters

    var service: IdentityService { exchange.service }
    var flows: NativeAuthFlows { service.nativeAuthFlows }
    var now: Date { exchange.now }
    /// The tenant's user flow: the sign-up method and the attributes it collects.
    var userFlow: ExternalUserFlow { tenant.externalUserFlow }

    /// `tenant`: the path's, which serves the API (`Tenant.servesNativeAuthentication`).
    init(_ exchange: IdentityExchange, tenant: Tenant) throws(NativeAuthError) {
        let directory = exchange.service.currentDirectory
        guard exchange.request.method == "POST" else { throw NativeAuthError(.methodNotAllowed(exchange.request.method)) }
        let form = exchange.request.form
        guard let clientID = form["client_id"], !clientID.isEmpty else {
            throw NativeAuthError(.nativeParameterInvalid("client_id"))
        }
        let client: ResolvedClient
        do throws(ClientRefusal) {
            client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.service.options, tenant: tenant)
        } catch {
            throw NativeAuthError(error.entra())
        }
        // A registration must allow public client flows and enable the API; an unregistered (lenient) id
        // stands for an app that did both.
        if client.isRegistered {
            guard client.application.isPublicClient else { throw NativeAuthError(.confidentialClientNotSupported()) }
            guard client.application.nativeAuthenticationApisEnabled else { throw NativeAuthError.nativeAuthenticationDisabled() }
        }
        self.exchange = exchange
        self.tenant = tenant
        self.clientID = clientID
        self.form = form
    }

    func optional(_ name: String) -> String? { form[name].flatMap { $0.isEmpty ? nil : $0 } }

    func required(_ name: String) throws(NativeAuthError) -> String {
        guard let value = optional(name) else { throw NativeAuthError(.missingParameter(name)) }
        return value
    }

    /// The longest email address, password or code FakeEntra keeps (an address is at most 254 characters);
    /// the 4 KB an `attributes` object may take.
    static let longestValue = 256
    static let longestAttributes = 4096

    /// `required` for a value kept in a flow, the outbox or the directory: longer ones are refused.
    func requiredShort(_ name: String) throws(NativeAuthError) -> String {
        let value = try required(name)
        guard value.utf8.count <= Self.longestValue else {
            throw NativeAuthError(.nativeParameterInvalid(name))
        }
        return value
    }

    /// The values of `challenge_type` and `capabilities` the API acts on. A flow keeps only these: kept as
    /// sent, the lists would let one anonymous request hold megabytes for the flow's lifetime.
    static let knownChallengeTypes: Set<String> = ["password", "oob", "redirect"]
    static let knownCapabilities: Set<String> = ["mfa_required", "registration_required"]

    /// The methods the app can show (`challenge_type`, space-separated; commas accepted as the reference's
    /// examples write capabilities). An unknown one is refused, as the service refuses it (the reference:
    /// "the challenge_type parameter value contains an unsupported authentication method"); `redirect`
    /// must be among them.
    func challengeTypes() throws(NativeAuthError) -> Set<String> {
        var types: Set<String> = []
        for name in Self.items(of: try required("challenge_type")) {
            guard Self.knownChallengeTypes.contains(name) else { throw NativeAuthError(.unsupportedChallengeType()) }
            types.insert(name)
        }
        guard types.contains("redirect") else { throw NativeAuthError(.redirectChallengeMissing()) }
        return types
    }

    /// A space- or comma-separated list's items, lower-cased.
    private static func items(of list: String) -> some Sequence<String> {
        list.split(whereSeparator: { $0 == " " || $0 == "," }).lazy.map { $0.lowercased() }
    }

    /// The token for where `event` leaves the flow (the flow saved, its earlier tokens retired).
    func advance(_ flow: NativeAuthFlow, on event: NativeAuthFlow.Event) throws(NativeAuthError) -> String {
        guard let token = flows.advance(flow, on: event, now: now) else { throw NativeAuthError(.continuationTokenInvalid()) }
        return token
    }

    /// What the app handles natively (`capabilities`, space-separated, as MSAL sends it; the reference's
    /// `capability`, comma-separated, too). No refusal of an unknown capability is documented or recorded:
    /// it is ignored.
    func capabilities() -> Set<String> {
        Set([optional("capabilities"), optional("capability")].compactMap { $0 }.flatMap(Self.items(of:)).filter(Self.knownCapabilities.contains))
    }

    /// A user of this tenant signing in with `name` (their email).
    func user(named name: String) -> DirectoryUser? {
        service.currentDirectory.user(signInName: name, tenantID: tenant.id)
    }

    func user(id: String?) -> DirectoryUser? {
        id.flatMap { service.currentDirectory.user(id: $0) }
    }

    /// The flow `continuation_token` stands for, this client's.
    func presentedFlow() throws(NativeAuthError) -> NativeAuthFlow {
        let token = try required("continuation_token")
        do { return try flows.flow(presented: token, by: presenter, now: now) } catch { throw NativeAuthError(.continuationToken(error)) }
    }

    /// The flow `continuation_token` stands for, provided it is of `kind`, this client's, and at one of `steps`.
    func flow(kind: NativeAuthFlow.Kind, steps: [NativeAuthFlow.Step]) throws(NativeAuthError) -> NativeAuthFlow {
        try Self.require(try presentedFlow(), kind: kind, steps: steps)
    }

    /// `flow`, provided it is of `kind` and at one of `steps`.
    static func require(_ flow: NativeAuthFlow, kind: NativeAuthFlow.Kind, steps: [NativeAuthFlow.Step]) throws(NativeAuthError) -> NativeAuthFlow {
        guard flow.kind == kind, steps.contains(flow.step) else { throw NativeAuthError(.continuationTokenInvalid()) }
        return flow
    }

    /// This request, as the holder of a V1 flow's token.
    var presenter: NativeAuthFlows.Presenter { .v1(tenantID: tenant.id, clientID: clientID) }

    /// Mails a new code to `address` for `flow` (the earlier one stops working).
    func mailCode(to address: String, in flow: inout NativeAuthFlow, purpose: OutboxMessage.Purpose) {
        (flow.code, flow.codeExpiresAt) = service.outbox.mailCode(to: address, purpose: purpose, now: now)
    }

    /// The code mailed last, unexpired. A wrong code leaves the flow where it is: the user may try again.
    func checkCode(_ flow: NativeAuthFlow, presented: String) throws(NativeAuthError) {
        guard Outbox.accepts(presented, code: flow.code, expiresAt: flow.codeExpiresAt, now: now) else { throw NativeAuthError(.invalidOneTimeCode()) }
    }

    /// `attributes`: a JSON object of the user's answers (`{"displayName": "Kai"}`); numbers and booleans
    /// as their text.
    func attributes() throws(NativeAuthError) -> [String: String] {
        guard let text = optional("attributes") else { return [:] }
        guard text.utf8.count <= Self.longestAttributes, let object = LocatedJSON.object(body: Array(text.utf8), source: "attributes") else {
            throw NativeAuthError(.nativeParameterInvalid("attributes"))
        }
        var values: [String: String] = [:]
        for member in object.members ?? [] { if let text = member.value.scalarText { values[member.key] = text } }
        return values
    }

    /// Makes the account a finished sign-up describes: a local account signing in with its email.
    func createAccount(_ flow: NativeAuthFlow) throws(NativeAuthError) -> String {
        let created = service.directory.withLock { directory in
            directory.addCustomer(email: flow.username, attributes: userFlow.collected(from: flow.attributes), password: flow.password ?? "", tenant: tenant)
        }
        guard let created else { throw NativeAuthError(.userAlreadyExists()) }
        return created.id
    }

    /// A success: the members given, as JSON, never cached.
    func answer(_ members: KeyValuePairs<String, JSONValue>) -> HTTPResponse {
        NativeAuthResponse.json(members)
    }

    /// The app cannot do what the flow needs here: it goes on in a browser (HTTP 200, as the reference says).
    func redirect(_ reason: String) -> HTTPResponse {
        NativeAuthResponse.redirect(reason)
    }
}
