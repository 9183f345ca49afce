/// What the service's sign-up and reset pages, B2C's and External ID's, and the native authentication API
/// accept as an email address: one `@`, a local part, a domain of two or more labels none of them empty
/// (so no leading, trailing or doubled dot), and no whitespace or control character anywhere. Light, as
/// the service's own page regex is (B2C's built-in `email` claim type): it catches typos, not every corner
/// of RFC 5322. (A configuration file's `format: email` is lighter: it agrees on empty labels but needs no
/// dot in the domain.)
package enum EmailAddress {
    package static func isValid(_ text: String) -> Bool {
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }
}
