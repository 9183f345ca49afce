import ExchangeKernel
import EntraCrypto
package import EntraHTTP
import FoundationGaps

/// Instance discovery, OIDC metadata (v2 and v1), signing keys and user realm.
package enum DiscoveryEndpoints {
    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        exchange.answeringErrorsAsJSON(handle)
    }

    static func handle(_ exchange: IdentityExchange) throws(IdentityError) -> HTTPResponse {
        let query = exchange.request.query
        switch exchange.route.endpoint {
        case .instanceDiscovery:
            let endpoint = try required(query, "authorization_endpoint")
            let apiVersion = query["api-version"] ?? "1.1"
            let directory = exchange.service.currentDirectory
            let discovery = InstanceDiscovery(origin: exchange.origin, writtenSegment: { writtenSegment($0, exchange: exchange, directory: directory) })
            return json(try discovery.document(apiVersion: apiVersion, authorizationEndpoint: endpoint))
        case .openIDConfiguration(let version):
            let directory = exchange.service.currentDirectory
            let selector = try exchange.tenantSelector(directory: directory)
            var metadata = OpenIDMetadata(origin: exchange.origin, segment: exchange.route.tenantSegment, selector: selector, version: version)
            if case .specific(let tenant) = selector, let alias = exchange.directives.authorityAlias, directory.tenant(matching: alias)?.id == tenant.id {
                metadata.pathAlias = alias
            }
            metadata.servedIssuer = exchange.directives.discoveryIssuer
            exchange.receipt.answered(Receipt.Answer(issuer: metadata.documentIssuer))
            return json(metadata.document())
        case .keys(let version):
            let selector = try exchange.tenantSelector(directory: exchange.service.currentDirectory)
            let issuer = OpenIDMetadata(origin: exchange.origin, segment: exchange.route.tenantSegment, selector: selector, version: version).issuer
            let set = JSONWebKeySet(keys: exchange.service.keys.published(at: exchange.now).map { $0.jwk(issuer: issuer, cloudInstanceName: "microsoftonline.com") })
            return json(bytes: set.bytes)
        case .userRealm(let login):
            // Per user, never cached, a file to a browser (recorded 2022: the Azure SDK for Go's password credential).
            var answer = json(UserRealm(directory: exchange.service.currentDirectory).document(for: login, apiVersion: query["api-version"] ?? "1.0"))
            answer.headers.set("Cache-Control", "no-store, no-cache")
            answer.headers.set("Pragma", "no-cache")
            answer.headers.set("Expires", "-1")
            answer.headers.set("Content-Disposition", "inline; filename=userrealm.json")
            return answer
        default:
            throw .malformedRequest()
        }
    }

    /// The tenant segment a discovery document writes: a binding's alias where the segment names the tenant
    /// the alias stands for, so a client on the alias stays on it.
    static func writtenSegment(_ segment: String, exchange: IdentityExchange, directory: Directory) -> String {
        guard let alias = exchange.directives.authorityAlias, let aliased = directory.tenant(matching: alias),
              directory.tenant(matching: segment)?.id == aliased.id else { return segment }
        return alias
    }

    static func required(_ query: FormParameters, _ name: String) throws(IdentityError) -> String {
        guard let value = query[name], !value.isEmpty else { throw .invalidInstance() }
        return value
    }

    static func json(_ body: ClaimSet) -> HTTPResponse { json(bytes: body.bytes) }

    /// A discovery document's answer (Entra's and B2C's): cacheable for a day, readable from any origin.
    package static func json(bytes: [UInt8]) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "max-age=86400, private")
        headers.set("Access-Control-Allow-Origin", "*")
        headers.set("Access-Control-Allow-Methods", "GET, OPTIONS")
        return HTTPResponse(status: .ok, headers: headers, body: bytes)
    }
}

