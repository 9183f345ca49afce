import EntraCrypto
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON
import Scenarios

/// `POST /_fakeentra/tokens`: mints an access or id token with the platform's own claims and key.
/// JSON in (`user`, `clientId`, `tenant`, `scopes`, `roles`, `audience`, `lifetime`, `version`, `claims`,
/// `type`, `forge`, `binding`), JSON out (`token`, `header`, `claims`, `expiresOn`). Same access rule and error
/// shape as the rest of the control API.
struct TokenMintEndpoint {
    let commands: ControlCommands

    func respond(to request: HTTPRequest, context: ConnectionFacts) -> HTTPResponse {
        guard request.method == "POST" else {
            var response = Self.refusal(405, "method_not_allowed", "mint a token with POST and a JSON body")
            response.headers.set("Allow", "POST")
            return response
        }
        let parsed: (mint: TokenMintRequest, binding: String?)
        do { parsed = try Self.parse(request.body) } catch { return Self.refusal(400, "bad_request", error.message) }
        do {
            let minted = try commands.mint(parsed.mint, binding: parsed.binding, origin: PublicOrigin(request: request, context: context).url)
            let header = JWSHeaderText.of(minted.token).flatMap { LocatedJSON.object(body: $0.utf8, source: "header") } ?? .object([])
            let body = JSONValue.object([
                ("token", .string(minted.token)),
                ("type", .string(parsed.mint.kind.rawValue)),
                ("expiresOn", .int(Int(minted.expiresOn.timeIntervalSince1970))),
                ("header", header),
                ("claims", .object(minted.claims.members)),
            ])
            return .controlJSON(status: 201, body: body.bytes)
        } catch {
            let status = error.reason == .invalidRequest ? 400 : 404
            return Self.refusal(status, error.reason.rawValue, error.message)
        }
    }

    struct BodyError: Error { var message: String }

    /// A refusal in the control API's one error shape.
    static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        ScenarioEngineError(status: status, code: code, message: message).response
    }

    /// The JSON body, every member checked for its type; unknown members are refused (a typo must not
    /// mint a token that silently lacks what the test asked for).
    static func parse(_ bytes: [UInt8]) throws(BodyError) -> (TokenMintRequest, String?) {
        guard !bytes.isEmpty else { return (TokenMintRequest(), nil) }
        let tree: JSONValue
        do { tree = try LocatedJSON.parse(bytes, file: "body") } catch { throw BodyError(message: "the body is not JSON: \(error.description)") }
        guard let members = tree.members else { throw BodyError(message: "the body must be a JSON object") }
        var mint = TokenMintRequest()
        var binding: String?
        for member in members {
            let value = member.value
            let string = { () throws(BodyError) -> String in
                guard let text = value.string else { throw BodyError(message: "\"\(member.key)\" must be a string") }
                return text
            }
            let strings = { () throws(BodyError) -> [String] in
                if let text = value.string { return text.split(separator: " ").map(String.init) }
                guard let items = value.array, items.allSatisfy({ $0.string != nil }) else { throw BodyError(message: "\"\(member.key)\" must be an array of strings (or one space-separated string)") }
                return items.compactMap(\.string)
            }
            switch member.key {
            case "type":
                guard let kind = TokenMintRequest.Kind(rawValue: try string()) else { throw BodyError(message: "\"type\" must be \"access\" or \"id\"") }
                mint.kind = kind
            case "user": mint.user = try string()
            case "clientId": mint.clientID = try string()
            case "tenant": mint.tenant = try string()
            case "audience": mint.audience = try string()
            case "binding": binding = try string()
            case "scopes", "scope": mint.scopes = try strings()
            case "roles": mint.roles = try strings()
            case "lifetime":
                guard let seconds = value.number?.double else { throw BodyError(message: "\"lifetime\" must be a number of seconds") }
                mint.lifetime = seconds
            case "version":
                guard let number = value.number, number.isInteger else { throw BodyError(message: "\"version\" must be 1 or 2") }
                mint.version = Int(number.double)
            case "forge":
                guard let forgery = TokenForgery(rawValue: try string()) else { throw BodyError(message: "\"forge\" must be one of: \(TokenForgery.names)") }
                mint.forgery = forgery
            case "claims":
                guard let extra = value.members else { throw BodyError(message: "\"claims\" must be an object of claim names and values") }
                mint.extraClaims = extra.map { ($0.key, $0.value) }
            default:
                throw BodyError(message: "unknown member \"\(member.key)\"; expected type, user, clientId, tenant, scopes, roles, audience, lifetime, version, claims, forge, binding")
            }
        }
        return (mint, binding)
    }
}

/// The header of a compact JWS as JSON text.
enum JWSHeaderText {
    static func of(_ token: String) -> String? {
        guard let first = token.split(separator: ".").first, let bytes = Base64URL.decode(String(first)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
