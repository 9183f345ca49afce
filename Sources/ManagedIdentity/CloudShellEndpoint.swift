import EntraHTTP
import EntraCrypto
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

/// Azure Cloud Shell's local token endpoint (`MSI_ENDPOINT=http://localhost:50342/oauth2/token` in a
/// shell; here `/cloudshell/oauth2/token`, and `/cloudshell/metadata/identity/oauth2/token` for the
/// IMDS-style path it answers too). Its tokens are not an identity's but the signed-in person's, for the
/// Azure portal's console app. MSAL for .NET, Go and Node, azure-identity and the Azure CLI POST a form
/// with `resource` (and `Metadata: true`); MSAL for Java has sent `?resource=` with a GET since 2024.
/// - Every member of the answer is a string, `refresh_token` empty, `expires_in` what is left of the token
///   it keeps (recorded 2020: Azure CLI issue 14218 and the sample in its PR 15901).
/// - A user-assigned identity's id is ignored: the answer is the person's token all the same (Azure SDK
///   maintainers, azure-sdk-for-go PR 16946); each MSAL refuses one itself.
/// - A resource outside its audiences is refused 400 in Resource Manager's nested shape, code
///   `AudienceNotSupported`, in the short wording it has used since 2024 (Azure/CloudShell issues 109,
///   155, 477; the status: Azure-Samples/azure-search-openai-demo issue 629). Its audiences here: the
///   resources the directory holds.
struct CloudShellEndpoint {
    let service: IdentityService
    let cache: ManagedIdentityTokenCache

    /// The Azure portal's console app, whose tokens the shell hands out ("AzurePortal Console App": the
    /// `appid` Key Vault names when refusing a Cloud Shell user).
    static let consoleAppID = "b677c290-cf4b-4a8e-a60e-91ba650a4abe"
    static let consoleAppName = "AzurePortal Console App"

    func respond(to request: HTTPRequest, origin: String, receipt: ReceiptRecorder) -> HTTPResponse {
        guard request.method == "POST" || request.method == "GET" else {
            return Self.refusal(.methodNotAllowed, code: "MethodNotAllowed", message: "The shell's token endpoint answers POST (a form with resource) and GET (resource in the query).")
        }
        let resource = (request.method == "POST" ? request.form["resource"] : nil) ?? request.query["resource"] ?? ""
        let directory = service.currentDirectory
        guard !resource.isEmpty, let audience = directory.resource(named: resource) else {
            return Self.refusal(.badRequest, code: "AudienceNotSupported", message: "Audience \(resource) is not a supported MSI token audience.")
        }
        let configured = service.options.cloudShellUser
        guard let person = Self.signedInUser(in: directory, named: configured) else {
            return Self.refusal(.internalServerError, code: "InternalServerError", message: configured.map {
                "No one is signed in to this Cloud Shell: options.cloudShellUser names \($0), whom the directory no longer holds."
            } ?? "No one is signed in to this Cloud Shell: the directory holds no organization's user (options.cloudShellUser names one).")
        }
        let now = service.clock.now()
        var mint = TokenMintRequest()
        mint.clientID = Self.consoleAppID
        mint.user = person.id
        mint.scopes = [ManagedIdentityHandler.defaultScope(of: resource)]
        mint.extraClaims = [("app_displayname", .string(Self.consoleAppName))]
        // A v1.0 token names its resource as it was asked for, as the v1.0 endpoint's `resource=` does.
        if audience.accessTokenVersion != 2 { mint.audience = resource }
        let entry: ManagedIdentityTokenCache.Entry
        do {
            let key = ManagedIdentityTokenCache.Key(clientID: "cloudshell:" + person.id, resource: resource, capabilities: [])
            entry = try cache.token(key, now: now, refreshing: nil, keys: service.keys) { () throws(TokenMintError) in
                try TokenIssuer(service: service, origin: origin, now: now, receipt: receipt).mint(mint)
            }
        } catch {
            return Self.refusal(.internalServerError, code: "InternalServerError", message: "No token for \(person.userPrincipalName): \(error.message)")
        }
        let remaining = Int(entry.expiresOn.timeIntervalSince(now))
        receipt.answered(Receipt.Answer(expiresIn: remaining))
        let body = JSONValue.object([
            ("access_token", .string(entry.token)), ("refresh_token", .string("")), ("expires_in", .string(String(remaining))),
            ("expires_on", .string(String(Int(entry.expiresOn.timeIntervalSince1970)))),
            ("not_before", .string(String(Int(entry.issuedAt.timeIntervalSince1970)))),
            ("resource", .string(resource)), ("token_type", .string("Bearer")),
        ])
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: body.bytes)
    }

    /// The person the shell runs for: `options.cloudShellUser` (a UPN or object id), else the first user
    /// of the first organization.
    static func signedInUser(in directory: Directory, named name: String?) -> DirectoryUser? {
        if let name { return directory.user(named: name) }
        guard let tenant = directory.tenants.first(where: { $0.kind == .organization }) else { return nil }
        return directory.users.first { $0.tenantID == tenant.id }
    }

    static func refusal(_ status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        let body = JSONValue.object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body.bytes)
            .stating(StatedError(code: code, body: .init(error: code)))
    }
}
