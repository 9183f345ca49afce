import ExchangeKernel
package import EntraHTTP

/// `POST /{tenant}/oauth2/v2.0/token` and the v1 `POST /{tenant}/oauth2/token`.
package enum TokenEndpoint {
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        respond(exchange, trace: exchange.trace) { () throws(IdentityError) in try handle(exchange, version: version) }
    }

    /// A token endpoint's answer (Entra's and B2C's): CORS preflight, errors as JSON in `trace`, and CORS
    /// granted to any origin, as recorded (`Access-Control-Allow-Origin: *` with the methods and exposed
    /// headers below, on a 2024 AADSTS9002326 answer): which redemptions a browser may make is the grants'
    /// rule (AADSTS9002326/9002327), and a browser must be able to read that refusal.
    package static func respond(_ exchange: IdentityExchange, trace: TraceContext, _ handle: () throws(IdentityError) -> HTTPResponse) -> HTTPResponse {
        if exchange.request.method == "OPTIONS" { return preflight(exchange) }
        var response: HTTPResponse
        do {
            response = try handle()
        } catch {
            response = error.tokenEndpointResponse(in: trace)
        }
        allowCrossOrigin(&response, for: exchange.request)
        return response
    }

    /// The CORS headers of every token endpoint answer to a page (`Origin`), scripted ones included.
    package static func allowCrossOrigin(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard request.headers["Origin"] != nil else { return }
        response.headers.set("Access-Control-Allow-Origin", "*")
        response.headers.set("Access-Control-Allow-Methods", "POST, OPTIONS")
        response.headers.set("Access-Control-Expose-Headers", "Content-Length,Content-Encoding,x-ms-request-id")
    }

    /// The CORS preflight a browser sends before a cross-origin POST.
    static func preflight(_ exchange: IdentityExchange) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Access-Control-Allow-Origin", "*")
        headers.set("Access-Control-Allow-Methods", "POST, OPTIONS")
        headers.set("Access-Control-Allow-Headers", exchange.request.headers["Access-Control-Request-Headers"] ?? "content-type")
        headers.set("Access-Control-Max-Age", "86400")
        return HTTPResponse(status: .ok, headers: headers)
    }

    /// What the real service refuses before looking at the grant: a parameter sent twice
    /// (AADSTS9000411), and Basic credentials naming another client
    /// than the body's `client_id` (AADSTS9002313).
    static func checkParameters(_ request: HTTPRequest, version: EndpointVersion) throws(IdentityError) {
        try ParameterScreen.check(request.form, version: version)
        if let bodyID = request.form["client_id"], !bodyID.isEmpty,
           let basicID = PresentedClientCredentials(parameters: FormParameters(), headers: request.headers).clientID, basicID != bodyID {
            throw .malformedRequest()
        }
    }

    static func handle(_ exchange: IdentityExchange, version: EndpointVersion) throws(IdentityError) -> HTTPResponse {
        guard exchange.request.method == "POST" else { throw .methodNotAllowed(exchange.request.method) }
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
