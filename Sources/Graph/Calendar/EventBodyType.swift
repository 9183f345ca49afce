import EntraHTTP
import FoundationGaps
import LocatedJSON
import ExchangeKernel
import IdentityPlatform

/// How an event's `body` is answered. Outlook keeps bodies as HTML and answers HTML unless the request says
/// `Prefer: outlook.body-content-type="text"` (then text, and `Preference-Applied` says so), as Graph's
/// event-get examples record: an HTML document with a `<meta http-equiv>` head, or the text with a final CRLF.
enum EventBodyType: String {
    case html, text

    /// The body type a request's `Prefer` header asks for, if any.
    static func preferred(by headers: HTTPHeaders) -> EventBodyType? {
        for value in headers.values(for: "Prefer") {
            for preference in value.split(separator: ",") {
                let parts = preference.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0].lowercased() == "outlook.body-content-type" else { continue }
                if let type = EventBodyType(rawValue: parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()) { return type }
            }
        }
        return nil
    }

    func render(_ event: CalendarEvent) -> JSONValue {
        .object([("contentType", .string(rawValue)), ("content", .string(content(of: event)))])
    }

    private static let htmlHead = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head>"

    func content(of event: CalendarEvent) -> String {
        switch (self, event.bodyContentType == "html") {
        case (.html, true):
            return event.body.lowercased().hasPrefix("<html") ? event.body : "\(Self.htmlHead)<body>\(event.body)</body></html>"
        case (.html, false):
            guard !event.body.isEmpty else { return "" }
            return "\(Self.htmlHead)<body><div>\(HTML.escape(event.body))</div></body></html>"
        case (.text, true):
            guard !event.body.isEmpty else { return "" }
            return Self.plainText(ofHTML: event.body) + "\r\n"
        case (.text, false):
            return event.body.isEmpty ? "" : event.body + "\r\n"
        }
    }

    /// The text of an HTML body: tags dropped, the entities Outlook writes decoded, lines trimmed.
    static func plainText(ofHTML html: String) -> String {
        let text = html.replacingOccurrences(of: "<(br|/p|/div|/tr)[^>]*>", with: "\n", options: [.regularExpression, .caseInsensitive])
            .replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&nbsp;", with: " ").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        return text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\r\n")
    }
}
