import FoundationGaps

/// What each sign-in request carries: values of its own, and no secret of the app.
extension Judge {
    /// The /authorize requests that start a sign-in (an app's, not a page's post of its `ctx`).
    private var signInStarts: [Exchange] {
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
