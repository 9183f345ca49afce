package import EntraHTTP
import FoundationGaps

/// A fragment of markup whose interpolated strings are escaped unless they are themselves `HTML`:
/// forgetting to escape a display name, a redirect URI or a state takes an explicit `HTML(raw:)`.
package struct HTML: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    package private(set) var markup: String

    package init(raw markup: String) { self.markup = markup }

    package init(stringLiteral value: String) { markup = value }

    package init(stringInterpolation: StringInterpolation) { markup = stringInterpolation.markup }

    package var description: String { markup }

    package static let empty = HTML(raw: "")

    package static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(raw: lhs.markup + rhs.markup) }

    package struct StringInterpolation: StringInterpolationProtocol {
        var markup = ""

        package init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        package mutating func appendLiteral(_ literal: String) { markup += literal }
        package mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }
        package mutating func appendInterpolation(_ text: String?) { markup += HTML.escape(text ?? "") }
        package mutating func appendInterpolation(_ number: Int) { markup += String(number) }
        package mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        package mutating func appendInterpolation(_ list: [HTML]) { markup += list.map(\.markup).joined(separator: "\n") }
    }

    /// Escapes for text and for quoted attribute values alike.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// The inverse of `escape` (for reading back what a page carries).
    package static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `<input type="hidden">`.
    package static func hidden(_ name: String, _ value: String) -> HTML {
        "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">"
    }

    /// A plain message alert without a service code.
    package static func alert(id: String, message: String?) -> HTML {
        guard let message else { return .empty }
        return "<div class=\"alert\" id=\"\(id)\" role=\"alert\">\(message)</div>"
    }
}

/// The frame every FakeEntra page shares: one card, inline CSS only, readable without CSS or JavaScript.
package enum PageLayout {
    /// `head`: page-specific styles or scripts after the shared stylesheet; `fullWidth`: a working page
    /// (the console) rather than a dialog card.
    package static func document(title: String, heading: String, content: HTML, wide: Bool = false, footer: HTML = .empty, head: HTML = .empty, fullWidth: Bool = false) -> HTML {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex, nofollow">
        <title>\(title)</title>
        <style>\(HTML(raw: stylesheet))</style>
        \(head)
        </head>
        <body>
        <main class="card\(wide ? " wide" : "")\(fullWidth ? " full" : "")">
        <div class="brand" aria-hidden="true">FakeEntra</div>
        <h1 id="pageTitle">\(heading)</h1>
        \(content)
        </main>
        <footer>\(footer)<span>FakeEntra: a local stand-in for the Microsoft identity platform. Not a Microsoft service.</span></footer>
        </body>
        </html>
        """
    }

    /// A 200 (or other) HTML response that no cache keeps.
    package static func response(_ page: HTML, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.set("Cache-Control", "no-store, no-cache")
        headers.set("Pragma", "no-cache")
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("Referrer-Policy", "no-referrer")
        return HTTPResponse(status: status, headers: headers, text: page.markup, contentType: "text/html; charset=utf-8")
    }

    private static let stylesheet = """
    *{box-sizing:border-box}
    body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;\
    background:#f2f2f2;color:#1b1b1b;font:15px/1.45 "Segoe UI",system-ui,-apple-system,sans-serif}
    .card{background:#fff;width:100%;max-width:440px;padding:44px;box-shadow:0 2px 6px rgba(0,0,0,.2);margin:16px}
    .card.wide{max-width:560px}
    .card.full{max-width:1240px;padding:28px 36px}
    .brand{font-weight:600;color:#5e5e5e;margin-bottom:16px;letter-spacing:.02em}
    h1{font-size:24px;font-weight:600;margin:0 0 16px}
    p{margin:0 0 12px}
    label{display:block;margin:12px 0 4px;font-weight:600}
    input[type=email],input[type=password],input[type=text]{width:100%;padding:6px 2px;font:inherit;border:0;border-bottom:1px solid #666;outline-offset:2px}
    input:focus{border-bottom-color:#0067b8}
    /* The primary button comes first in the markup so that pressing Enter submits it; shown on the right. */
    .actions{display:flex;flex-direction:row-reverse;gap:8px;justify-content:flex-start;margin-top:24px;flex-wrap:wrap}
    button{font:inherit;min-width:108px;padding:6px 12px;border:1px solid #8a8886;background:#e6e6e6;color:#1b1b1b;cursor:pointer}
    button.primary{background:#0067b8;border-color:#0067b8;color:#fff}
    button:focus-visible{outline:2px solid #000;outline-offset:2px}
    button.link{background:none;border:0;color:#0067b8;min-width:0;padding:0;text-decoration:underline}
    .alert{color:#a80000;margin:8px 0;padding:0}
    .tiles{list-style:none;margin:0;padding:0}
    .tiles li{border-bottom:1px solid #e6e6e6}
    .tile{display:block;width:100%;text-align:left;background:none;border:0;padding:12px 4px}
    .tile:hover{background:#f2f2f2}
    .tile small{display:block;color:#5e5e5e}
    .permissions{padding-left:20px}
    .permissions li{margin-bottom:8px}
    .permissions small{display:block;color:#5e5e5e}
    .permissions label.choice{display:inline;margin:0;font-weight:normal}
    .muted{color:#5e5e5e;font-size:13px}
    dl.trace{font-size:13px;color:#5e5e5e;word-break:break-all}
    dl.trace dt{font-weight:600}
    dl.trace dd{margin:0 0 6px}
    footer{font-size:12px;color:#5e5e5e;margin:8px;text-align:center}
    footer a{color:#5e5e5e}
    """
}
