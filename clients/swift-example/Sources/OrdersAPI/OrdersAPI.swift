import Hummingbird

/// `GET /orders`: the caller's orders, for a bearer token with the `Orders.Read` scope.
public func buildRouter(validator: TokenValidator) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("orders") { request, _ -> String in
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"])
        }
        let caller: CallerClaims
        do { caller = try await validator.validate(String(header.dropFirst("Bearer ".count))) } catch {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""], message: "\(error)")
        }
        guard caller.scopes.contains("Orders.Read") else { throw HTTPError(.forbidden, message: "needs the Orders.Read scope") }
        return "orders of \(caller.name ?? caller.subject)"
    }
    return router
}
