import EntraCrypto
package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform

/// What rules match on, read once from a request (and from the world's state, for the owner of a
/// refresh token or code).
package struct RequestFacts: Sendable, Equatable {
    package var kind: EndpointKind
    package var isB2C: Bool
    package var method: String
    package var path: String
    /// The Graph resource the request names (`me`, `events`…), as the Graph module calls it.
    package var graphResource: String?
    /// The tenant segment as written (`common`, a GUID, a domain, a scenario alias); nil for Graph.
    package var tenantSegment: String?
    package var policy: String?
    /// The tenant segment and, once resolved against the world's directory, the tenant's id and domains (lowercased).
    package var tenantNames: Set<String> = []
    package var grantType: String?
    package var clientID: String?
    /// Names the request's user goes by: sign-in names and object id, lowercased.
    package var userNames: Set<String>
    /// Requested scopes, lowercased, Graph's prefix removed.
    package var scopes: [String]
    package var parameters: FormParameters
    package var headers: HTTPHeaders

    /// A refresh token, code, device code, user code or sign-in flow id the request carries (for binding affinity).
    package var grantHandles: [String]
    /// The bearer token of a Graph call.
    package var bearerToken: String?
    /// Client capabilities the bearer token declares (`xms_cc`, `cp1` for continuous access evaluation).
    package var clientCapabilities: [String] = []
    /// A native-authentication step that can hand its journey to the browser (`ServiceRoute.handsJourneyToBrowser`).
    package var handsJourneyToBrowser = false

    package init(kind: EndpointKind, isB2C: Bool = false, method: String = "GET", path: String = "/", tenantSegment: String? = nil, policy: String? = nil,
                grantType: String? = nil, clientID: String? = nil, userNames: Set<String> = [], scopes: [String] = [],
                parameters: FormParameters = .init(), headers: HTTPHeaders = [:], grantHandles: [String] = [], bearerToken: String? = nil) {
        self.kind = kind
        self.isB2C = isB2C
        self.method = method
        self.path = path
        self.tenantSegment = tenantSegment
        self.policy = policy
        self.grantType = grantType
        self.clientID = clientID
        self.userNames = userNames
        self.scopes = scopes
        self.parameters = parameters
        self.headers = headers
        self.grantHandles = grantHandles
        self.bearerToken = bearerToken
    }

    /// Routes `request` with `routes` and reads its facts (tests, HAR import; the engine has the route already).
    package static func classify(_ request: HTTPRequest, routes: RouteResolver) -> RequestFacts {
        RequestFacts(request, route: routes.route(request))
    }

    /// A parameter as the facts of `request` name it before a world resolves them (`parameters`): the
    /// query's, else the form's. For a request answered without its facts.
    package static func parameter(_ name: String, of request: HTTPRequest) -> String? {
        request.query[name] ?? request.form[name]
    }

    /// The facts of a routed request without any world: route, parameters, headers, bearer claims.
    package init(_ request: HTTPRequest, route: RequestRoute) {
        // The form as it is when there is no query (the usual POST): no second array of its pairs.
        var parameters = request.query
        if parameters.pairs.isEmpty {
            parameters = request.form
        } else {
            for pair in request.form.pairs { parameters.append(pair.name, pair.value) }
        }
        self.init(kind: route.ruleEndpoint, isB2C: route.isB2C, method: request.method.uppercased(), path: FormCoding.percentDecode(request.rawPath) ?? request.rawPath,
                  tenantSegment: route.tenantSegment, policy: route.policy, parameters: parameters, headers: request.headers)
        if case .service(let service) = route {
            graphResource = service.resourceName
            handsJourneyToBrowser = service.handsJourneyToBrowser
        }
        if let tenant = route.tenantSegment { tenantNames.insert(tenant.fastLowercased) }
        grantType = parameters["grant_type"]
        clientID = parameters["client_id"] ?? Self.basicAuthClientID(request.headers["Authorization"])
        scopes = Self.normalizedScopes(parameters["scope"] ?? "")
        for name in Self.userHintNames {
            if let hint = parameters[name], !hint.isEmpty { userNames.insert(hint.fastLowercased) }
        }
        for name in Self.grantHandleNames {
            if let handle = parameters[name], !handle.isEmpty { grantHandles.append(handle) }
        }
        if let credentials = request.headers["Authorization"]?.credentials(ofScheme: "bearer") {
            let token = String(credentials).trimmingCharacters(in: .whitespaces)
            bearerToken = token
            addClaims(of: token)
        }
    }

    private static let userHintNames = ["login_hint", "username", "login"]
    private static let grantHandleNames = ["refresh_token", "code", "device_code", "user_code", "otc", "ctx"]

    /// Adds the user and client a bearer token names (decoded without verification: matching only).
    mutating func addClaims(of token: String) {
        guard let claims = ParsedJWT(token) else { return }
        for key in ["oid", "upn", "preferred_username", "unique_name", "email"] {
            if let value = claims.string(key) { userNames.insert(value.fastLowercased) }
        }
        if clientID == nil { clientID = claims.string("appid") ?? claims.string("azp") }
        if let tid = claims.string("tid") { tenantNames.insert(tid.fastLowercased) }
        clientCapabilities = claims.strings("xms_cc")
        if kind == .graph, scopes.isEmpty, let scp = claims.string("scp") { scopes = Self.normalizedScopes(scp) }
    }

    /// Completes the facts from a world: the owner of a refresh token, code or device code the
    /// request carries, every name of the users named, the tenant's id and domains.
    package mutating func resolve(_ known: GrantFacts, directory: Directory) {
        // A page posted back (sign-in, consent, MFA) continues an /authorize: its parameters count as this request's.
        if let original = known.flowParameters {
            for (name, value) in original.sorted(by: { $0.key < $1.key }) where parameters[name] == nil { parameters.append(name, value) }
            if clientID == nil { clientID = original["client_id"] }
            if scopes.isEmpty { scopes = Self.normalizedScopes(original["scope"] ?? "") }
            if let hint = original["login_hint"], !hint.isEmpty { userNames.insert(hint.fastLowercased) }
            if let userID = known.flowUserID { userNames.insert(userID.fastLowercased) }
        }
        for name in tenantNames {
            if let tenant = directory.tenant(matching: name) { tenantNames.formUnion([tenant.id] + tenant.domains) }
        }
        // The code a person types on /devicelogin names the device flow, and so its client and scopes.
        for flow in known.deviceFlows {
            if clientID == nil { clientID = flow.clientID }
            if scopes.isEmpty { scopes = flow.scopes.map(Self.normalizedScope) }
        }
        for owner in known.owners {
            userNames.insert(owner.fastLowercased)
            if let user = directory.user(id: owner) { userNames.formUnion(Self.names(of: user)) }
        }
        // A login hint names a user; add the user's other names so a rule may use either.
        for name in userNames {
            if let user = directory.user(signInName: name) ?? directory.user(id: name) { userNames.formUnion(Self.names(of: user)) }
        }
    }

    static func names(of user: DirectoryUser) -> Set<String> {
        Set(([user.id, user.userPrincipalName] + [user.mail].compactMap { $0 } + user.otherMails).map { $0.fastLowercased })
    }

    /// `https://graph.microsoft.com/User.Read` and `User.Read` both become `user.read`.
    static func normalizedScopes(_ text: String) -> [String] {
        // Split as bytes (a space or a form's `+`): every request's facts name its scopes.
        text.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "+") }).map { normalizedScope(String(Substring($0))) }
    }

    private static let graphPrefixes = ["https://graph.microsoft.com/", "00000003-0000-0000-c000-000000000000/"]

    static func normalizedScope(_ scope: String) -> String {
        var s = scope.fastLowercased
        for prefix in graphPrefixes where s.hasPrefix(prefix) { s = String(decoding: s.utf8.dropFirst(prefix.utf8.count), as: UTF8.self) }
        return s
    }

    private static func basicAuthClientID(_ header: String?) -> String? {
        guard let header, header.fastLowercased.hasPrefix("basic "),
              let data = Data(base64Encoded: String(header.dropFirst(6))), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        return FormCoding.percentDecode(String(text[..<colon]))
    }
}
