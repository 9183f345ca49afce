import EntraHTTP

// Scaffolding owned by the idtoken helper: replaced by the real endpoint before it lands on main.
enum DiscoveryEndpoints {
    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        IdentityError(error: "temporarily_unavailable", code: 0, message: "not built yet", status: 503)
            .tokenEndpointResponse(in: exchange.trace)
    }
}
