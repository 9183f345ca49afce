package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
import Scenarios

/// One rule for every request that can change FakeEntra's state from `/_fakeentra/…` (the control API,
/// the token mint, the journal, conformance runs, the console's forms): a web page on another origin
/// cannot make a browser send one. A request with a browser's origin (`Origin`, `Sec-Fetch-Site`) must
/// come from FakeEntra's own origin; a request with neither comes from a program (curl, the SDKs, the
/// CLI) and goes on. The JSON endpoints also take JSON only: a form or `text/plain` post, which a page
/// can send without a preflight, is refused. CORS is never granted to `/_fakeentra/`.
package struct CrossSiteGuard: ExchangeLayer {
    package init() {}

    package func serves(_ route: RequestRoute) -> Bool { route == .control || route == .console }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        Self.refusal(request, console: context.route == .console) ?? next(request, context)
    }

    /// The refusal, in the control API's error JSON, or nil.
    static func refusal(_ request: HTTPRequest, console: Bool) -> HTTPResponse? {
        let method = request.method.uppercased()
        guard !["GET", "HEAD", "OPTIONS"].contains(method) else { return nil }
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased(), site != "same-origin", site != "none" {
            return ScenarioEngineError.crossSite("the request came from a \(site) page (Sec-Fetch-Site)").response
        }
        if let origin = request.headers["Origin"] {
            guard isSameOrigin(origin, host: request.headers["Host"]) else {
                return ScenarioEngineError.crossSite("the request came from the page of \(origin)").response
            }
        }
        if !console, let type = request.headers["Content-Type"], !type.lowercased().hasPrefix("application/json") {
            return ScenarioEngineError.unsupportedMediaType(type).response
        }
        return nil
    }

    /// `https://host:port` against the Host header (scheme aside: the listener decides it). `null`, the
    /// origin of sandboxed frames and local files, is never FakeEntra's.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard origin != "null", let components = URLComponents(string: origin), let name = components.host?.lowercased(), let host else { return false }
        let literal = name.contains(":") && !name.hasPrefix("[") ? "[\(name)]" : name
        let authority = components.port.map { "\(literal):\($0)" } ?? literal
        return authority == host.lowercased().trimmingCharacters(in: .whitespaces)
    }
}
