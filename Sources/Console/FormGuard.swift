import EntraCrypto
import EntraHTTP
import FoundationGaps

/// Cross-site request forgery guard for the console's forms: a random token per server run in every
/// form (a page on another origin cannot read it), and a foreign `Origin` refused outright.
struct FormGuard: Sendable {
    static let fieldName = "csrf"
    let token: String

    init(token: String = SecureRandom.base64URLString(byteCount: 24)) { self.token = token }

    func accepts(_ request: HTTPRequest, form: FormParameters) -> Bool {
        if let origin = request.headers["Origin"], origin != "null" {
            let host = request.headers["Host"]?.lowercased() ?? ""
            let originHost = origin.lowercased().split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
            guard originHost == host else { return false }
        }
        guard let presented = form[Self.fieldName] else { return false }
        return ConstantTime.equals(presented, token)
    }
}
