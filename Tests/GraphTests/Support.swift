import LocatedJSON
import EntraCrypto
import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
@testable import Graph

/// The signing key of the fixture's platform (generated once: RSA generation costs ~100 ms).
let platformCredential: SigningCredential = {
    do { return try SigningCredential.generate() } catch { fatalError("key generation failed: \(error)") }
}()

/// A key the platform does not know, for forged tokens.
let strangerCredential: SigningCredential = {
    do { return try SigningCredential.generate(commonName: "Somebody else") } catch { fatalError("key generation failed: \(error)") }
}()

enum Demo {
    static let tenant = Directory.contosoTenantID
    static let adele = "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"
    static let alex = "b8c5e1d2-7f3a-4b6c-8d9e-0a1b2c3d4e5f"
    static let megan = "00000000-0000-0000-66f3-3332eca7ea81"
    static let client = "11111111-2222-3333-4444-555555555555"
    /// Wednesday 8 January 2025, 12:00 UTC: the ISO week runs Monday 6 to Sunday 12.
    static let now = Date(timeIntervalSince1970: 1_736_337_600)
}

/// A Graph handler over the demo directory on a frozen clock, and helpers to mint tokens and send requests.
struct GraphFixture {
    let clock = VirtualClock(frozenAt: Demo.now)
    let service: IdentityService
    let handler: GraphHandler

    init(directory: Directory = .embeddedDefault, dataset: GraphDataset = .embeddedDefault) {
        service = IdentityService(directory: directory, keys: SigningKeyRing(current: platformCredential), clock: clock)
        handler = GraphHandler(service: service, dataset: dataset)
    }

    /// A v1 Graph access token as the token endpoint issues it; every claim can be overridden or removed (nil).
    func token(
        user: String? = Demo.adele, tenant: String = Demo.tenant, scopes: String? = "User.Read Calendars.Read", roles: [String]? = nil,
        audience: String = "https://graph.microsoft.com", issuer: String? = nil, lifetime: TimeInterval = 3600,
        issuedAt: Date? = nil, capabilities: [String]? = nil, credential: SigningCredential = platformCredential,
        extra: [String: Any] = [:]
    ) -> String {
        let issued = issuedAt ?? clock.now()
        var claims: [String: Any] = [
            "aud": audience, "iss": issuer ?? "https://login.microsoftonline.com/\(tenant)/",
            "iat": Int(issued.timeIntervalSince1970), "nbf": Int(issued.timeIntervalSince1970),
            "exp": Int(issued.timeIntervalSince1970 + lifetime), "tid": tenant, "appid": Demo.client, "ver": "1.0",
        ]
        if let user {
            claims["oid"] = user
            claims["sub"] = "pairwise-\(user.prefix(8))"
            claims["idtyp"] = "user"
        } else {
            claims["oid"] = "99999999-0000-0000-0000-000000000001"
            claims["idtyp"] = "app"
        }
        if let scopes { claims["scp"] = scopes }
        if let roles { claims["roles"] = roles }
        if let capabilities { claims["xms_cc"] = capabilities }
        for (name, value) in extra { claims[name] = value }
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try! JWS.signJWT(payloadJSON: Array(payload), credential: credential)
    }

    func appToken(roles: [String]) -> String { token(user: nil, scopes: nil, roles: roles) }

    /// `scripted`: a scenario rule's answer, as the engine hands it down.
    func get(_ target: String, token: String?, host: String = "127.0.0.1:8443", headers: [(String, String)] = [], method: String = "GET",
             scripted: ScriptedAnswer? = nil) -> HTTPResponse {
        var fields: HTTPHeaders = ["Host": host]
        if let token { fields.add("Authorization", "Bearer \(token)") }
        for (name, value) in headers { fields.add(name, value) }
        let request = HTTPRequest(method: method, target: target, headers: fields)
        guard let response = handler.handle(request, scripted: scripted) else {
            Issue.record("Graph handler declined \(target)")
            return HTTPResponse(status: HTTPStatus(599))
        }
        return response
    }
}

extension HTTPResponse {
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// The error object of a Graph error body.
    var graphError: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var errorCode: String? { graphError["code"] as? String }
    var errorMessage: String? { graphError["message"] as? String }
    var values: [[String: Any]] { json["value"] as? [[String: Any]] ?? [] }
}

/// The exact error body Graph sends, for comparing as text.
func expectedErrorBody(code: String, message: String, response: HTTPResponse, date: String = "2025-01-08T12:00:00") -> String {
    let requestID = response.headers["request-id"] ?? "?"
    let clientRequestID = response.headers["client-request-id"] ?? "?"
    return #"{"error":{"code":"\#(code)","message":\#(JSONValue.quoted(message)),"innerError":{"date":"\#(date)","request-id":"\#(requestID)","client-request-id":"\#(clientRequestID)"}}}"#
}

extension GraphHandler {
    /// As the world router calls it: the request routed by Graph's resolver; nil for a request the
    /// resolver gives to another service.
    func handle(_ request: HTTPRequest, connection: ConnectionFacts = ConnectionFacts(), scripted: ScriptedAnswer? = nil) -> HTTPResponse? {
        guard let route = options.routes.route(request) as? GraphRoute else { return nil }
        var directives = ScenarioDirectives()
        directives.answer = scripted
        return handle(request, route: route, context: ExchangeContext(connection: connection, route: .service(route), directives: directives))
    }
}
