package import ExchangeKernel

extension HTML {
    /// `<div role="alert">` carrying the AADSTS code in `data-aadsts` so scripts need not parse prose.
    package static func alert(id: String, _ error: IdentityError?) -> HTML {
        guard let error else { return .empty }
        return "<div class=\"alert\" id=\"\(id)\" role=\"alert\" data-aadsts=\"\(error.code)\">\(error.prefixedCode): \(error.message)</div>"
    }
}
