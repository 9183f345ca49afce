import Console
import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Scenarios

/// One rule for every request that can change FakeEntra's state from `/_fakeentra/…` (the control API,
/// the token mint, the journal, conformance runs, the console's forms): a web page on another origin
/// cannot make a browser send one. A request with a browser's origin (`Origin`, `Sec-Fetch-Site`) must
/// come from FakeEntra's own origin; a request with neither comes from a program (curl, the SDKs, the
/// CLI) and goes on. The JSON endpoints also take JSON only: a form or `text/plain` post, which a page
/// can send without a preflight, is refused. CORS is never granted to `/_fakeentra/`.
enum CrossSiteGuard {
    static let prefix = "/_fakeentra/"
    static let consolePrefix = "/_fakeentra/console"

    /// The refusal, in the control API's error JSON, or nil.
    static func refusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.rawPath.hasPrefix(prefix) || request.rawPath == "/_fakeentra" else { return nil }
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
        let isConsole = request.rawPath.hasPrefix(consolePrefix)
        if !isConsole, let type = request.headers["Content-Type"], !type.lowercased().hasPrefix("application/json") {
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

/// The headers every page FakeEntra renders carries, whatever rendered it (sign-in pages, console,
/// error pages): no framing (the real sign-in pages refuse it, and a framed console could be clicked
/// through), no sniffing, no referrer with codes or tokens in it, and no script but FakeEntra's own two
/// inline scripts, allowed by their hashes: markup that a reflected value slipped into a page could not
/// run, even if escaping ever missed it.
enum PageSecurityHeaders {
    static let policy: String = {
        let hashes = [Pages.formPostScript, ConsoleAssets.script].map { "'sha256-\(Data(Digest.sha256(Array($0.utf8))).base64EncodedString())'" }
        return "script-src \(hashes.joined(separator: " ")); object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    }()

    static func apply(to response: inout HTTPResponse) {
        guard response.headers["Content-Type"]?.lowercased().hasPrefix("text/html") == true else { return }
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Content-Security-Policy", policy)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
    }
}
