import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// `/error?code=NNNN`, where every `error_uri` points: what an AADSTS code means, from `ErrorCatalogue`.
enum ErrorLookup {
    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        let text = (exchange.request.query["code"] ?? "").uppercased().replacingOccurrences(of: "AADSTS", with: "")
        guard !text.isEmpty else { return PageLayout.response(page(code: nil, entry: nil)) }
        guard let code = Int(text.trimmingCharacters(in: .whitespaces)) else {
            return PageLayout.response(page(code: text, entry: nil), status: .badRequest)
        }
        let entry = ErrorCatalogue.entry(code: code)
        return PageLayout.response(page(code: String(code), entry: entry), status: entry == nil ? .notFound : .ok)
    }

    static func page(code: String?, entry: IdentityError?) -> HTML {
        let result: HTML
        if let entry {
            let suberror: HTML = entry.suberror.map { "<dt>Suberror</dt><dd id=\"suberror\">\($0)</dd>" } ?? .empty
            result = """
                <section id="errorDetails" data-aadsts="\(entry.code)">
                <h2>\(entry.prefixedCode)</h2>
                <dl class="trace">
                <dt>Error</dt><dd id="oauthError">\(entry.error)</dd>
                \(suberror)
                <dt>Message</dt><dd id="errorMessage">\(entry.message)</dd>
                </dl>
                </section>
                """
        } else if let code {
            result = "<p id=\"unknownCode\" role=\"alert\">FakeEntra does not produce AADSTS\(code). See Microsoft's reference of AADSTS error codes.</p>"
        } else {
            result = .empty
        }
        return PageLayout.document(title: "Error code lookup", heading: "Error code lookup", content: """
            <form id="errorlookup" method="get" action="/error">
            <label for="code">Error code</label>
            <input type="text" name="code" id="code" value="\(code)" inputmode="numeric">
            <div class="actions"><button type="submit" id="idSIButton9" class="primary">Submit</button></div>
            </form>
            \(result)
            """, wide: true)
    }
}
