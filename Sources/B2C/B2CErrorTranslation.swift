import ExchangeKernel
package import IdentityPlatform

extension IdentityError {
    /// An Entra error raised by shared code (client resolution and authentication) in B2C's words.
    package static func b2cTranslated(_ error: IdentityError, tenant: String) -> IdentityError {
        guard error.family == .aadsts else { return error }
        return switch error.code {
        case 700016: .b2cClientNotRegistered(error.message.between("'", "'") ?? "", tenant: tenant)
        case 7000218: .b2cMissingClientSecret()
        case 7000215, 7000222: .b2cWrongClientSecret()
        case 700025: .b2cPublicClientSentSecret()
        case 900144: .b2cMissingParameter(error.message.between("'", "'") ?? "")
        default: error
        }
    }
}

extension String {
    /// The text between the first `open` and the next `close`.
    func between(_ open: Character, _ close: Character) -> String? {
        guard let start = firstIndex(of: open) else { return nil }
        let rest = self[index(after: start)...]
        guard let end = rest.firstIndex(of: close) else { return nil }
        return String(rest[..<end])
    }
}

