import ExchangeKernel
package import EntraHTTP

/// `POST /{tenant}/oauth2/v2.0/token` and the v1 `POST /{tenant}/oauth2/token`.
package enum TokenEndpoint {
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        respond(exchange, trace: exchange.trace) { () throws(IdentityError) in try handle(exchange) }
    }

    /// A token endpoint's answer (Entra's and B2C's): CORS preflight, errors as JSON in `trace`, and the
    /// caller's `Origin` allowed, because single-page apps (MSAL.js) redeem codes from the browser.
    package static func respond(_ exchange: IdentityExchange, trace: TraceContext, _ handle: () throws(IdentityError) -> HTTPResponse) -> HTTPResponse {
        if exchange.request.method == "OPTIONS" { return preflight(exchange) }
        var response: HTTPResponse
        do {
            response = try handle()
        } catch {
            response = error.tokenEndpointResponse(in: trace)
        }
        if let origin = exchange.request.headers["Origin"] { response.headers.set("Access-Control-Allow-Origin", origin) }
        return response
    }

    /// The CORS preflight a browser sends before a cross-origin POST.
    static func preflight(_ exchange: IdentityExchange) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Access-Control-Allow-Origin", exchange.request.headers["Origin"] ?? "*")
        headers.set("Access-Control-Allow-Methods", "POST, OPTIONS")
        headers.set("Access-Control-Allow-Headers", exchange.request.headers["Access-Control-Request-Headers"] ?? "content-type")
        headers.set("Access-Control-Max-Age", "86400")
        return HTTPResponse(status: .ok, headers: headers)
    }

    /// What the real service refuses before looking at the grant: a parameter sent twice
    /// (AADSTS9000411), `resource` on v2.0 (AADSTS901002), and Basic credentials naming another client
    /// than the body's `client_id` (AADSTS9002313).
    static func checkParameters(_ request: HTTPRequest, version: EndpointVersion) throws(IdentityError) {
        try ParameterScreen.check(request.form, version: version)
        if let bodyID = request.form["client_id"], !bodyID.isEmpty,
           let basicID = PresentedClientCredentials(parameters: FormParameters(), headers: request.headers).clientID, basicID != bodyID {
            throw .malformedRequest()
        }
    }

    static func handle(_ exchange: IdentityExchange) throws(IdentityError) -> HTTPResponse {
        guard exchange.request.method == "POST" else { throw .methodNotAllowed(exchange.request.method) }
        guard case .token(let version) = exchange.route.endpoint else { throw .malformedRequest() }
        try checkParameters(exchange.request, version: version)
        let directory = exchange.service.currentDirectory
        let request = TokenRequest(
            exchange: exchange, version: version, selector: try exchange.tenantSelector(directory: directory),
            directory: directory, parameters: exchange.request.form
        )
        let grantType = try request.required("grant_type")
        switch grantType {
        case "authorization_code": return try AuthorizationCodeGrant.redeem(request)
        case "refresh_token": return try RefreshTokenGrant.redeem(request)
        case "client_credentials": return try ClientCredentialsGrant.redeem(request)
        case "password" where request.optional("continuation_token") != nil && request.isExternalTenant, "oob", "mfa_oob", "continuation_token":
            return try NativeAuthGrants.redeem(request, grantType: grantType)
        case "password": return try PasswordGrant.redeem(request)
        case deviceCodeGrantType, "device_code": return try DeviceCodeGrant.redeem(request)
        case jwtBearerGrantType: return try OnBehalfOfGrant.redeem(request)
        default: throw .unsupportedGrantType(grantType)
        }
    }
}
