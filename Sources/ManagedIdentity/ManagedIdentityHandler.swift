package import EntraHTTP
import EntraCrypto
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform
import LocatedJSON

/// The token endpoints of managed identities, as azure-identity's `ManagedIdentityCredential` speaks to
/// them and as recorded (Tests/Fidelity/recordings/managedidentity--*):
/// - IMDS (`GET /metadata/identity/oauth2/token?api-version=2018-02-01&resource=…`, `Metadata: true`):
///   every member a string (`expires_in`, `expires_on`, `ext_expires_in`, `not_before`), the resource
///   echoed (azure-identity caches by it); `{"error", "error_description"}` otherwise.
/// - App Service (`GET /msi/token?api-version=2019-08-01&resource=…`, `X-IDENTITY-HEADER`): `expires_on`
///   as a string of seconds and no `expires_in`; `{"statusCode", "message"}` otherwise.
/// - Service Fabric (`GET /servicefabric/metadata/identity/oauth2/token?api-version=2019-07-01-preview`,
///   `secret`): `token_type`, `access_token`, `expires_on` as a number, `resource` (recorded 2020).
/// - Azure ML compute (`GET /azureml/msi/token?api-version=2017-09-01&clientid=…`, `secret`): `expires_in`
///   and `expires_on` as numbers (recorded 2023).
/// - Azure Arc (`GET /azurearc/metadata/identity/oauth2/token?api-version=2020-06-01&resource=…`,
///   `Metadata: true`): a 401 naming a key file first, then with `Authorization: Basic <its content>` every
///   number a string and an empty `resource` (recorded 2020); a user-assigned identity's selector echoed,
///   as MSAL requires of an agent that honours it.
/// The token is the identity's app-only token, minted like any other FakeEntra token: `idtyp` app,
/// `appidacr` 2, `oid`/`sub` the identity's object id, `xms_mirid` its resource id. Cloud Shell's endpoint
/// (`CloudShellEndpoint`) answers for the person signed in to the shell instead.
package struct ManagedIdentityHandler: ExchangeHandler {
    package let service: IdentityService
    private let issued = ManagedIdentityTokenCache()
    package init(service: IdentityService) {
        self.service = service
        _ = Self.processStart   // Arc's Go timestamps count from here
    }

    struct Failure: Error {
        var status: HTTPStatus
        var error: String
        var description: String
    }

    package func handle(_ request: HTTPRequest, route: ManagedIdentityRoute, context: ExchangeContext) -> HTTPResponse {
        let origin = PublicOrigin(request: request, context: context.connection).url
        var response: HTTPResponse
        if let answer = context.directives.answer, let scripted = scripted(answer, receipt: context.receipt) {
            response = scripted
        } else {
            switch route {
            case .host(let endpoint):
                do {
                    response = try respond(to: request, endpoint: endpoint, origin: origin, receipt: context.receipt)
                } catch {
                    response = Self.failure(error, endpoint: endpoint)
                }
            case .cloudShell:
                response = CloudShellEndpoint(service: service, cache: issued).respond(to: request, origin: origin, receipt: context.receipt)
            }
        }
        // IMDS names each answer since 2025 (azure-sdk-assets Go azidentity IMDS recordings @ 191110b0;
        // the 2024 ones have none).
        if route == .host(.instanceMetadata) { response.headers.set("x-ms-request-id", context.requestID) }
        return response
    }

    /// A scenario's fault as IMDS documents its faults, by status alone (404 and 410 while it updates, 429
    /// when throttled, 5xx; learn.microsoft.com, "How to use managed identities for Azure resources on an
    /// Azure VM to acquire an access token", Error handling; no body of them is recorded), or a recorded
    /// answer as it was; nil for another service's kind of answer.
    private func scripted(_ answer: ScriptedAnswer, receipt: ReceiptRecorder) -> HTTPResponse? {
        switch answer {
        case .serviceError(let spec):
            var response = HTTPResponse(status: HTTPStatus(spec.status))
            if let retryAfter = spec.retryAfterHeader(now: service.clock.now()) { response.headers.set("Retry-After", retryAfter) }
            return response
        case .response(let canned): return canned.response(receipt: receipt)
        case .oauthError, .graphError, .claimsChallenge, .browserRequired: return nil
        }
    }

    /// IMDS and Arc answer only a request that says `Metadata: true` (a browser's cross-site request cannot).
    private static func requireMetadataHeader(_ request: HTTPRequest) throws(Failure) {
        guard request.headers["Metadata"]?.lowercased() == "true" else {
            throw Failure(status: .badRequest, error: "invalid_request", description: "Required metadata header not specified")
        }
    }

    private func respond(to request: HTTPRequest, endpoint: ManagedIdentityRoute.HostEndpoint, origin: String, receipt: ReceiptRecorder) throws(Failure) -> HTTPResponse {
        guard request.method == "GET" else { throw Failure(status: .methodNotAllowed, error: "invalid_request", description: "Only GET is supported.") }
        switch endpoint {
        case .instanceMetadata:
            try Self.requireMetadataHeader(request)
            // IMDS "rejects any request with an X-Forwarded-For header" (learn.microsoft.com, Azure Instance
            // Metadata Service, Security and authentication): a request relayed by a proxy must not reach it.
            // No answer to one is recorded; the status and wording here are FakeEntra's.
            guard request.headers["X-Forwarded-For"] == nil else {
                throw Failure(status: .badRequest, error: "invalid_request", description: "Requests with an X-Forwarded-For header are rejected")
            }
        case .azureArc:
            try Self.requireMetadataHeader(request)
            let key: ArcKeyFile
            switch ArcKeyFile.current {
            case .success(let written): key = written
            case .failure(let problem): throw Failure(status: .internalServerError, error: "server_error", description: problem.description)
            }
            guard key.accepts(request.headers["Authorization"]) else {
                // A wrong key is answered as a missing one, in FakeEntra's words (no answer to one is recorded).
                let reason = request.headers["Authorization"] == nil ? "Missing Basic Authorization header" : "Invalid Basic Authorization header"
                return Self.arcChallenge(realm: key.path, description: reason, now: service.clock.now())
            }
        case .serviceFabric, .azureML:
            guard request.headers["secret"] == service.options.managedIdentityHeader else {
                throw Failure(status: .unauthorized, error: "invalid_request",
                              description: "secret is missing or is not the IDENTITY_HEADER (MSI_SECRET) this endpoint was given (FakeEntra's: the managedIdentityHeader option).")
            }
        case .appService:
            // api-version 2017-09-01 (MSI_ENDPOINT and MSI_SECRET) sends the secret as `secret`.
            guard let header = request.headers["X-IDENTITY-HEADER"] ?? request.headers["secret"], header == service.options.managedIdentityHeader else {
                throw Failure(status: .unauthorized, error: "invalid_request",
                              description: "X-IDENTITY-HEADER is missing or is not the IDENTITY_HEADER this endpoint was given (FakeEntra's: the managedIdentityHeader option).")
            }
        }
        let query = request.query
        guard query["api-version"].map({ !$0.isEmpty }) == true else {
            throw Failure(status: .badRequest, error: "invalid_request", description: "Required query variable 'api-version' is missing")
        }
        guard let resource = query["resource"], !resource.isEmpty else {
            throw Failure(status: .badRequest, error: "invalid_request", description: "Required query variable 'resource' is missing")
        }
        let directory = service.currentDirectory
        // Both endpoints ask Entra for the token. IMDS relays Entra's refusal of an unknown resource as the
        // token endpoint words it (recorded: MSAL.NET issue 3979 and its MockHelpers' IMDS error response);
        // App Service answers a generic 500 of its own (MSAL.NET's ManagedIdentityTests against a real Web
        // App, and Azure SDK for .NET issue 44685), misspelling included.
        guard directory.resource(named: resource) != nil else {
            if endpoint == .appService {
                throw Failure(status: .internalServerError, error: "unknown", description: "An unexpected error occured while fetching the AAD Token.")
            }
            let trace = TraceContext(traceID: SecureRandom.guid(), correlationID: SecureRandom.guid(), timestamp: service.clock.now(), origin: origin)
            return IdentityError.resourceNotFound(resource).tokenEndpointResponse(in: trace)
        }
        let selector = try Self.selector(query)
        guard let identity = directory.managedIdentity(selector) else {
            // App Service's words for an identity the app does not have (recorded: Azure SDK for .NET issue 43691).
            throw Failure(status: .badRequest, error: "invalid_request",
                          description: endpoint == .appService ? "Unable to load the proper Managed Identity." : "Identity not found")
        }
        var mint = TokenMintRequest()
        mint.clientID = identity.clientID
        mint.tenant = identity.tenantID
        mint.scopes = [Self.defaultScope(of: resource)]
        // The client's capabilities (`xms_cc=cp1`, as MSAL sends them) go into the token, as on any grant.
        let capabilities = (query["xms_cc"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        mint.extraClaims = [
            ("oid", .string(identity.objectID)), ("sub", .string(identity.objectID)),
            ("appidacr", .string("2")), ("app_displayname", .string(identity.name)),
            ("xms_mirid", .string(identity.resourceID)),
        ]
        if !capabilities.isEmpty { mint.extraClaims.append(("xms_cc", .strings(capabilities))) }
        let now = service.clock.now()
        let key = ManagedIdentityTokenCache.Key(clientID: identity.clientID, resource: resource, capabilities: capabilities)
        let minted: ManagedIdentityTokenCache.Entry
        do {
            // Issued into the receipt: the console's ledger and a scenario world know the token as theirs.
            minted = try issued.token(key, now: now, refreshing: query["token_sha256_to_refresh"], keys: service.keys) { () throws(TokenMintError) in
                try TokenIssuer(service: service, origin: origin, now: now, receipt: receipt).mint(mint)
            }
        } catch {
            throw Failure(status: .badRequest, error: "invalid_resource", description: error.message)
        }
        let expiresOn = Int(minted.expiresOn.timeIntervalSince1970)
        switch endpoint {
        case .serviceFabric:
            return Self.json([("token_type", .string("Bearer")), ("access_token", .string(minted.token)),
                              ("expires_on", .int(expiresOn)), ("resource", .string(resource))])
        case .azureML:
            return Self.json([("access_token", .string(minted.token)), ("expires_in", .int(Int(minted.expiresOn.timeIntervalSince(now)))),
                              ("expires_on", .int(expiresOn)), ("resource", .string(resource)), ("token_type", .string("Bearer"))])
        case .azureArc:
            let lifetime = Int(minted.expiresOn.timeIntervalSince(now))
            receipt.answered(Receipt.Answer(expiresIn: lifetime))
            var body: [(String, JSONValue)] = [
                ("access_token", .string(minted.token)), ("refresh_token", .string("")), ("expires_in", .string(String(lifetime))),
                ("expires_on", .string(String(expiresOn))), ("not_before", .string(String(Int(minted.issuedAt.timeIntervalSince1970)))),
                ("resource", .string("")), ("token_type", .string("Bearer")),
            ]
            switch selector {
            case .clientID: body.append(("client_id", .string(identity.clientID)))
            case .objectID: body.append(("object_id", .string(identity.objectID)))
            case .resourceID: body.append(("msi_res_id", .string(identity.resourceID)))
            case .system: break
            }
            return Self.json(body)
        case .instanceMetadata, .appService:
            break
        }
        var body: [(String, JSONValue)] = [("access_token", .string(minted.token)), ("client_id", .string(identity.clientID))]
        if endpoint == .instanceMetadata {
            let lifetime = Int(minted.expiresOn.timeIntervalSince(now))
            receipt.answered(Receipt.Answer(expiresIn: lifetime))
            body += [
                ("expires_in", .string(String(lifetime))), ("expires_on", .string(String(expiresOn))),
                ("ext_expires_in", .string(String(lifetime + Int(service.options.accessTokenExtension)))),
                ("not_before", .string(String(Int(minted.issuedAt.timeIntervalSince1970)))),
            ]
        } else if query["api-version"] == "2017-09-01" {
            // The 2017 protocol wrote the expiry as a date (recorded `05/22/2021 17:14:33 +00:00`).
            body.append(("expires_on", .string(Self.legacyDate(minted.expiresOn))))
        } else {
            body.append(("expires_on", .string(String(expiresOn))))
        }
        body += [("resource", .string(resource)), ("token_type", .string("Bearer"))]
        return Self.json(body)
    }

    /// The `.default` scope of a resource the endpoints are asked for (`https://vault.azure.net` and
    /// `https://management.core.windows.net/` alike).
    static func defaultScope(of resource: String) -> String {
        resource.hasSuffix("/") ? resource + ".default" : resource + "/.default"
    }

    private static func json(_ members: [(String, JSONValue)]) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: JSONValue.object(members).bytes)
    }

    /// Azure Arc's challenge, as its agent (written in Go) answers it: `error_codes` [401], a Go timestamp
    /// with its monotonic reading, an empty `trace_id` (recorded 2020, Azure SDK for .NET's Arc live test).
    static func arcChallenge(realm: String, description: String, now: Date) -> HTTPResponse {
        let body = JSONValue.object([
            ("error", .string("unauthorized_client")), ("error_description", .string(description)), ("error_codes", .array([.int(401)])),
            ("timestamp", .string(goTimestamp(now))), ("trace_id", .string("")), ("correlation_id", .string(SecureRandom.guid())),
        ])
        return HTTPResponse(status: .unauthorized, headers: ["Content-Type": "application/json", "WWW-Authenticate": "Basic realm=\(realm)"], body: body.bytes)
            .stating(StatedError(code: nil, body: .init(error: "unauthorized_client")))
    }

    /// When the endpoints started: an Arc agent's timestamps carry the time since its start.
    private static let processStart = ContinuousClock.now

    /// Go's `time.Time.String()`: `2020-11-11 22:38:15.596399013 +0000 UTC m=+56183.746777614` (trailing
    /// zeros of the fraction dropped).
    static func goTimestamp(_ date: Date) -> String {
        let nanoseconds = Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded(.down))
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let days = Int(seconds.quotientAndRemainder(dividingBy: 86_400).quotient), secondOfDay = Int(seconds - Int64(days) * 86_400)
        let day = CivilDate.date(daysSinceEpoch: days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var fractionText = ""
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            fractionText = "." + digits
        }
        let start = processStart
        let elapsed = ContinuousClock.now - start
        let monotonic = "\(elapsed.components.seconds)" + String(format: ".%09lld", elapsed.components.attoseconds / 1_000_000_000)
        return "\(day.year)-\(two(day.month))-\(two(day.day)) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
            + fractionText + " +0000 UTC m=+" + monotonic
    }

    static func legacyDate(_ date: Date) -> String {
        // `MM/dd/yyyy HH:mm:ss +00:00` in UTC.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%02d/%02d/%04d %02d:%02d:%02d +00:00", c.month ?? 1, c.day ?? 1, c.year ?? 1970, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// `client_id`, `object_id`, `msi_res_id` (IMDS) or `mi_res_id` (App Service); none: system-assigned.
    static func selector(_ query: FormParameters) throws(Failure) -> ManagedIdentity.Selector {
        let given: [ManagedIdentity.Selector] = [
            // `clientid` is the 2017-09-01 protocol's name (App Service's MSI_ENDPOINT, Azure ML's).
            (query["client_id"] ?? query["clientid"]).map { .clientID($0) }, query["object_id"].map { .objectID($0) },
            (query["msi_res_id"] ?? query["mi_res_id"]).map { .resourceID($0) },
        ].compactMap { $0 }
        guard given.count <= 1 else {
            throw Failure(status: .badRequest, error: "invalid_request", description: "Only one of client_id, object_id or msi_res_id may be given")
        }
        return given.first ?? .system
    }

    /// IMDS answers OAuth's `error`; App Service a status and a message only.
    static func failure(_ failure: Failure, endpoint: ManagedIdentityRoute.HostEndpoint) -> HTTPResponse {
        let body: JSONValue
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        var stated = StatedError(code: failure.error)
        if endpoint == .instanceMetadata || endpoint == .azureArc {
            body = .object([("error", .string(failure.error)), ("error_description", .string(failure.description))])
            stated.body = .init(error: failure.error)
        } else {
            let correlationID = SecureRandom.guid()
            body = .object([("statusCode", .int(failure.status.code)), ("message", .string(failure.description)),
                            ("correlationId", .string(correlationID))])
            // Also in a header, as recorded (Azure SDK for .NET issue 43691).
            headers.set("X-CORRELATION-ID", correlationID)
        }
        return HTTPResponse(status: failure.status, headers: headers, body: body.bytes).stating(stated)
    }
}
