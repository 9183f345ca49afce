import Console
import EntraCrypto
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform

/// The headers every page FakeEntra renders carries, whatever rendered it (sign-in pages, console,
/// error pages): no framing (the real sign-in pages refuse it, and a framed console could be clicked
/// through), no sniffing, no referrer with codes or tokens in it, and no script but FakeEntra's own two
/// inline scripts, allowed by their hashes: markup that a reflected value slipped into a page could not
/// run, even if escaping ever missed it.
struct PageSecurityHeaders: ExchangeLayer {
    static let policy: String = {
        let hashes = [Pages.formPostScript, ConsoleAssets.script].map { "'sha256-\(Data(Digest.sha256(Array($0.utf8))).base64EncodedString())'" }
        return "script-src \(hashes.joined(separator: " ")); object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    }()

    func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        var response = next(request, context)
        Self.apply(to: &response)
        return response
    }

    static func apply(to response: inout HTTPResponse) {
        guard response.headers["Content-Type"]?.lowercased().hasPrefix("text/html") == true else { return }
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Content-Security-Policy", policy)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
    }
}
