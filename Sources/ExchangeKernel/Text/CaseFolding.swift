import EntraHTTP
import FoundationGaps

extension String {
    /// `caseInsensitiveCompare(other) == .orderedSame`, without Foundation's locale-aware CFString
    /// comparison when both are ASCII (client ids, scopes, permission names on every token request).
    package func equalsIgnoringCase(_ other: String) -> Bool {
        if isPlainASCII, other.isPlainASCII { return equalsIgnoringASCIICase(other) }
        return caseInsensitiveCompare(other) == .orderedSame
    }

    /// `lowercased() == other.lowercased()`, byte by byte when both are ASCII. Outside ASCII it differs
    /// from `equalsIgnoringCase`: Foundation folds `ß` to `ss` and `ſ` to `s`, lower-casing does not.
    package func equalsWhenLowercased(_ other: String) -> Bool {
        isPlainASCII && other.isPlainASCII ? equalsIgnoringASCIICase(other) : lowercased() == other.lowercased()
    }
}
