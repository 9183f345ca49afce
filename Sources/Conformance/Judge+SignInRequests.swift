import FoundationGaps

/// What each sign-in request carries: values of its own, and no secret of the app.
extension Judge {
    /// The /authorize requests that start a sign-in (an app's, not a page's post of its `ctx`).
    var signInStarts: [Exchange] {
        all(.authorize).filter { $0.parameters["client_id"] != nil && $0.parameters["response_type"] != nil }
    }

    func freshPerSignInDecision() -> Decision {
        let starts = signInStarts
        guard starts.count >= 2 else {
            return (.notTestable, "\(starts.count) sign-in started: freshness shows between two or more", starts, [])
        }
        for name in ["state", "nonce", "code_challenge"] {
            var first: [String: Exchange] = [:]
            for exchange in starts {
                guard let value = exchange.parameters[name], !value.isEmpty else { continue }
                if let earlier = first[value] {
                    return (.failed, "two sign-ins sent the same \(name): a value an attacker who saw one sign-in can use in the next", [earlier, exchange], [])
                }
                first[value] = exchange
            }
        }
        return (.passed, "\(starts.count) sign-ins, each with its own state, nonce and code challenge", starts, [])
    }

    /// Parameters that hold a credential of the app or the user.
    static let secretParameters = ["client_secret", "client_assertion", "password"]

    func browserSecretDecision() -> Decision {
        // The app's own requests: a sign-in's start and a sign-out. The service's pages post the user's
        // password to /authorize themselves, under their `ctx`, without a client_id.
        let starts = signInStarts
        guard !starts.isEmpty else { return notSeen(.authorize) }
        let browserRequests = starts + exchanges.filter { $0.path.hasSuffix("/logout") }
        for exchange in browserRequests {
            if let name = Self.secretParameters.first(where: { exchange.parameters[$0] != nil }) {
                return (.failed, "\(exchange.method) \(exchange.path) carried \(name): the browser's history, logs and referrers keep what its URLs and posts hold", [exchange], [])
            }
        }
        return (.passed, "no client secret, assertion or password in the \(browserRequests.count) request(s) the browser carried", starts, [])
    }
}

/// RFC 8707 as an MCP client meets Entra ID: the server's URL as `resource`, its scopes in full.
extension Judge {
    func resourceDecision(_ request: Check.ResourceRequest) -> Decision {
        guard let server = mcpServer else { return (.notTestable, "the case named no MCP server", [], []) }
        let resource = server.url
        let requests: [Exchange]
        switch request {
        case .authorization:
            requests = signInStarts
            guard !requests.isEmpty else { return notSeen(.authorize) }
        case .token:
            requests = all(.codeRedemption) + all(.refresh)
            guard !requests.isEmpty else { return notSeen(.codeRedemption) }
        }
        for exchange in requests {
            guard let named = exchange.parameters["resource"] else {
                return (.failed, "\(exchange.method) \(exchange.path) carried no resource: the MCP server's URL belongs on every authorization and token request", [exchange], [])
            }
            guard named == resource else {
                return (.failed, "\(exchange.method) \(exchange.path) named resource \(named), not the MCP server's URL \(resource)", [exchange], [])
            }
            // Entra reads a short scope name as Microsoft Graph's, which another `resource` contradicts.
            if request == .authorization {
                let scopes = (exchange.parameters["scope"] ?? "").split(separator: " ").map(String.init)
                guard scopes.contains(where: server.scopes.contains) else {
                    return (.failed, "\(exchange.method) \(exchange.path) asked for \(scopes.joined(separator: " ")), not the MCP server's scope in full (\(server.scopes.joined(separator: " ")))", [exchange], [])
                }
            }
        }
        let what = request == .authorization ? "sign-in start(s)" : "token request(s)"
        return (.passed, "\(requests.count) \(what), each naming \(resource) as resource", requests, [])
    }
}

/// Dynamic registration (RFC 7591), which Entra does not offer.
extension Judge {
    /// A registration as a client posts one when the authorization server's metadata names no registration
    /// endpoint: at the issuer's origin (`/register`, the TypeScript SDK's fallback) or below the tenant
    /// (`/{tenant}/register`, `/{tenant}/v2.0/register`).
    package static func isDynamicRegistration(method: String, path: String) -> Bool {
        guard method.uppercased() == "POST" else { return false }
        let segments = path.lowercased().split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.last == "register" else { return false }
        return segments.count <= 2 || (segments.count == 3 && segments.dropFirst().first == "v2.0")
    }

    func dynamicRegistrationDecision(step: Int) -> Decision {
        let registrations = exchanges.filter { Self.isDynamicRegistration(method: $0.method, path: $0.path) }
        if !registrations.isEmpty {
            return (.failed, "\(registrations.count) dynamic registration(s) posted: Entra has none, the app's registration gives its client id", registrations, [])
        }
        if !unattributableRegistrations.isEmpty {
            return (.notTestable, "\(unattributableRegistrations.count) dynamic registration(s) posted while another MCP case ran on this server: which app sent it cannot be told",
                    unattributableRegistrations, [])
        }
        return during(step) { reply, _ in (.passed, "no dynamic registration reached Entra", [], [reply]) }
    }
}
