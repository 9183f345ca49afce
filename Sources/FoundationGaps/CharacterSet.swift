// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
/// The character sets FakeEntra tests scalars against, without the internationalization half of
/// Foundation (whose `CharacterSet` reads ICU's property tables): a predicate on Unicode scalars.
package struct CharacterSet: Sendable {
    private let test: @Sendable (Unicode.Scalar) -> Bool

    package init(_ test: @escaping @Sendable (Unicode.Scalar) -> Bool) { self.test = test }

    package init(charactersIn text: String) {
        let scalars = Set(text.unicodeScalars)
        test = { scalars.contains($0) }
    }

    package func contains(_ scalar: Unicode.Scalar) -> Bool { test(scalar) }

    package func union(_ other: CharacterSet) -> CharacterSet {
        let (a, b) = (test, other.test)
        return CharacterSet { a($0) || b($0) }
    }

    /// Space and tab, and the other horizontal spaces (Unicode's Zs category).
    package static let whitespaces = CharacterSet { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    package static let newlines = CharacterSet { ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"].contains($0) }
    package static let whitespacesAndNewlines = whitespaces.union(newlines)
    package static let letters = CharacterSet { $0.properties.isAlphabetic }
    package static let alphanumerics = CharacterSet { $0.properties.isAlphabetic || $0.properties.numericType != nil }
    /// RFC 3986's unreserved characters and the sub-delimiters a query may hold unescaped.
    package static let urlQueryAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?")
}
#endif
