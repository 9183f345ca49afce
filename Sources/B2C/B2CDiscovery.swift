import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform

/// The per-policy OpenID Connect metadata document and signing keys, shaped like B2C's own:
/// endpoints under the policy (written in lower case), issuer `https://<host>/<tenant id>/v2.0/`.
enum B2CDiscovery {
    static func metadata(_ exchange: B2CExchange) -> HTTPResponse {
        var d = ClaimSet()
        d.set("issuer", exchange.issuer)
        d.set("authorization_endpoint", exchange.url(of: .authorize))
        d.set("token_endpoint", exchange.url(of: .token))
        d.set("end_session_endpoint", exchange.url(of: .logout))
        d.set("jwks_uri", exchange.url(of: .keys))
        d.set("response_modes_supported", ["query", "fragment", "form_post"])
        d.set("response_types_supported", ["code", "code id_token", "code token", "code id_token token", "id_token", "id_token token", "token", "token id_token"])
        d.set("scopes_supported", ["openid"])
        d.set("subject_types_supported", ["pairwise"])
        d.set("id_token_signing_alg_values_supported", ["RS256"])
        d.set("token_endpoint_auth_methods_supported", ["client_secret_post", "client_secret_basic"])
        d.set("claims_supported", claimsSupported(exchange.policy))
        exchange.base.receipt.answered(Receipt.Answer(issuer: exchange.issuer))
        return DiscoveryEndpoints.json(bytes: d.bytes)
    }

    static func claimsSupported(_ policy: B2CConfiguration.Policy) -> [String] {
        let application = B2CClaim.allCases.filter(policy.emits).map(\.rawValue)
        return application + ["sub", "tfp", "iss", "iat", "exp", "aud", "nonce", "auth_time"]
    }

    static func keys(_ exchange: B2CExchange) -> HTTPResponse {
        let set = JSONWebKeySet(keys: exchange.service.keys.published(at: exchange.now).map { $0.jwk(bare: true) })
        return DiscoveryEndpoints.json(bytes: set.bytes)
    }
}
