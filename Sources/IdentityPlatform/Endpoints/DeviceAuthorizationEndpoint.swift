import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// `POST /{tenant}/oauth2/v2.0/devicecode` (and v1 `/oauth2/devicecode`): starts a device flow. The
/// person enters the user code at `<origin>/devicelogin`; the client polls /token with the device code.
enum DeviceAuthorizationEndpoint {
    /// No 0/O, 1/I/L or 5/S pairs to misread on a TV screen.
    static let userCodeAlphabet = Array("ABCDEFGHJKMNPQRTUVWXYZ2346789")
    static let userCodeLength = 9

    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        exchange.answeringErrorsAsJSON { exchange throws(IdentityError) in try handle(exchange, version: version) }
    }

    static func handle(_ exchange: IdentityExchange, version: EndpointVersion) throws(IdentityError) -> HTTPResponse {
        guard exchange.request.method == "POST" else { throw .methodNotAllowed(exchange.request.method) }
        let directory = exchange.service.currentDirectory
        let selector = try exchange.tenantSelector(directory: directory)
        let parameters = exchange.request.form
        guard let clientID = parameters["client_id"], !clientID.isEmpty else { throw .missingParameter("client_id") }
        var authorityTenant: Tenant?
        if case .specific(let tenant) = selector { authorityTenant = tenant }
        do throws(ClientRefusal) {
            _ = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.service.options, tenant: authorityTenant)
        } catch { throw error.entra() }
        let scopes: ScopeRequest
        if version == .v1 {
            guard let resource = parameters["resource"], !resource.isEmpty else { throw .missingParameter("resource") }
            scopes = try ScopeRequest.parse(v1Resource: resource, scope: parameters["scope"], directory: directory)
        } else {
            guard let scope = parameters["scope"], !scope.isEmpty else { throw .missingParameter("scope") }
            scopes = try ScopeRequest.parse(scope, directory: directory, options: exchange.service.options)
            try ResourceIndicator.check(parameters["resource"].flatMap { $0.isEmpty ? nil : $0 }, against: scopes)
        }

        let options = exchange.service.options
        let interval = exchange.directives.deviceCodeInterval ?? options.deviceCodePollingInterval
        let now = exchange.now
        let deviceCode = "DAQABAAEAAA" + SecureRandom.base64URLString(byteCount: 96)
        let userCode = exchange.service.state.withLock { state -> String in
            state.purge(now: now)
            var code = newUserCode()
            while state.userCodes[code] != nil { code = newUserCode() }
            var record = DeviceCodeRecord(
                deviceCode: deviceCode, userCode: code, clientID: clientID, tenantSegment: exchange.route.tenantSegment,
                requestedScopes: scopes.scopes, endpointVersion: version, issuedAt: now,
                expiresAt: now.addingTimeInterval(options.deviceCodeLifetime), interval: interval
            )
            record.status = .pending
            state.deviceCodes[deviceCode] = record
            state.userCodes[code] = UserCodeRecord(deviceCode: deviceCode, forgetAt: record.forgetAt)
            return code
        }
        let verificationURI = "\(exchange.origin.url)/devicelogin"
        exchange.receipt.grant(.deviceCode, .created, handle: deviceCode)
        exchange.receipt.update { $0.secrets.append(userCode) }
        var body = ClaimSet()
        body.set("user_code", userCode)
        body.set("device_code", deviceCode)
        // ADAL (v1) reads `verification_url`; the v2 endpoint says `verification_uri`.
        body.set(version == .v1 ? "verification_url" : "verification_uri", verificationURI)
        let expiresIn = Int(saturating: options.deviceCodeLifetime)
        body.set("expires_in", expiresIn)
        body.set("interval", interval)
        body.set("message", "To sign in, use a web browser to open the page \(verificationURI) and enter the code \(userCode) to authenticate.")
        exchange.receipt.answered(Receipt.Answer(expiresIn: expiresIn, interval: interval))
        return TokenIssuer.success(body)
    }

    static func newUserCode() -> String {
        // Rejection sampling keeps every letter equally likely.
        var code = ""
        let limit = 256 - 256 % userCodeAlphabet.count
        while code.count < userCodeLength {
            for byte in SecureRandom.bytes(count: 16) where Int(byte) < limit && code.count < userCodeLength {
                code.append(userCodeAlphabet[Int(byte) % userCodeAlphabet.count])
            }
        }
        return code
    }
}
