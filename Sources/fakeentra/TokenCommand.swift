#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import ExchangeKernel
import LocatedJSON

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint an access or id token from a running server, for curl tests of a web API.",
        discussion: """
        Posts to /_fakeentra/tokens (control API access rule). The token is signed with the server's key, so it \
        validates against the published JWKS like one from a sign-in. Prints the token, or with --decode its header and claims.
        Examples:
          fakeentra token --user adele.vance@contoso.onmicrosoft.com --scope api://orders-api/Orders.Read
          fakeentra token --scope https://graph.microsoft.com/.default --role User.Read.All --decode
          curl -H "Authorization: Bearer $(fakeentra token --user alex.wilber@contoso.onmicrosoft.com --scope api://my-api/read)" …
          fakeentra token --user adele.vance@contoso.onmicrosoft.com --scope api://my-api/read --forge wrongAudience   (an API must refuse it)
        """
    )

    @OptionGroup var server: RunningServerOptions
    @Option(help: "The user the token is about (UPN, sign-in name or object id); none: an app-only token.") var user: String?
    @Option(name: .customLong("client-id"), help: "The client the token is for (azp/appid; default: Azure CLI's client id).") var clientID: String?
    @Option(help: "App-only tokens: the tenant (id or domain).") var tenant: String?
    @Option(name: .customLong("scope"), help: ArgumentHelp("A scope such as api://my-api/read or User.Read (repeatable; names the audience).", valueName: "scope")) var scopes: [String] = []
    @Option(name: .customLong("role"), help: ArgumentHelp("An app role (repeatable).", valueName: "role")) var roles: [String] = []
    @Option(help: "Replace the audience (aud).") var audience: String?
    @Option(help: "Seconds until the token expires.") var lifetime: Double?
    @Option(name: .customLong("token-version"), help: "Access token format: 1 or 2 (default: what the resource accepts).") var tokenVersion: Int?
    @Option(name: .customLong("claim"), help: ArgumentHelp("An extra claim NAME=VALUE; VALUE is JSON if it parses, else a string (repeatable).", valueName: "name=value")) var claims: [String] = []
    @Flag(name: .customLong("id-token"), help: "Mint an id token instead of an access token.") var idToken = false
    @Option(help: ArgumentHelp("Break the token on purpose: \(TokenForgery.names).", valueName: "fault")) var forge: String?
    @Option(help: "Mint in a binding's world (its directory, clock and key).") var binding: String?
    @Flag(help: "Print the decoded header and claims instead of the token.") var decode = false

    func validate() throws {
        for claim in claims where !claim.contains("=") || claim.hasPrefix("=") {
            throw ValidationError("--claim \(claim): expected NAME=VALUE")
        }
        if let forge, TokenForgery(rawValue: forge) == nil {
            throw ValidationError("--forge \(forge): expected one of \(TokenForgery.names)")
        }
    }

    func run() throws {
        let client = try server.client()
        let body = String(decoding: requestBody().sortedKeysBytes, as: UTF8.self)
        let answer = try client.send("POST", "/_fakeentra/tokens", query: [], body: body, expecting: 201)
        guard let object = LocatedJSON.object(lenientBody: answer.utf8), let token = object["token"]?.string else {
            throw failure("\(client.baseURL) answered something that is not a minted token")
        }
        guard decode else { return print(token) }
        for name in ["header", "claims"] {
            guard let part = object[name] else { continue }
            print(part.sortingKeys.pretty())
        }
    }

    func requestBody() -> JSONValue {
        // A claim named twice keeps its last value, as a command line's last word usually wins.
        var extra = JSONValue.object([])
        for claim in claims {
            let name = String(claim.prefix { $0 != "=" })
            let value = String(claim.dropFirst(name.count + 1))
            extra = extra.setting(name, to: LocatedJSON.parse(body: value.utf8) ?? .string(value))
        }
        return .object(omittingNil: [
            "type": .string(idToken ? "id" : "access"),
            "user": user.map(JSONValue.string),
            "clientId": clientID.map(JSONValue.string),
            "tenant": tenant.map(JSONValue.string),
            "scopes": scopes.isEmpty ? nil : JSONValue.strings(scopes),
            "roles": roles.isEmpty ? nil : JSONValue.strings(roles),
            "audience": audience.map(JSONValue.string),
            "lifetime": lifetime.map(JSONValue.double),
            "version": tokenVersion.map(JSONValue.int),
            "forge": forge.map(JSONValue.string),
            "binding": binding.map(JSONValue.string),
            "claims": claims.isEmpty ? nil : extra,
        ])
    }
}
