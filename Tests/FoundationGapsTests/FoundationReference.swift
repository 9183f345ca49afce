import Foundation

/// Foundation's own answers (with its internationalization half and ICU's data), for the shims to agree
/// with. Kept in a file of its own: the shims have Foundation's names.
enum FoundationReference {
    static func offset(_ identifier: String, at instant: Date) -> Int? {
        TimeZone(identifier: identifier)?.secondsFromGMT(for: instant)
    }

    static func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces) }
    static func trimmedWithNewlines(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
    static func replaced(_ text: String, _ target: String, _ replacement: String, regex: Bool, caseInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if regex { options.insert(.regularExpression) }
        if caseInsensitive { options.insert(.caseInsensitive) }
        return text.replacingOccurrences(of: target, with: replacement, options: options)
    }
    static func found(_ text: String, _ target: String, backwards: Bool, caseInsensitive: Bool) -> Int? {
        var options: String.CompareOptions = []
        if backwards { options.insert(.backwards) }
        if caseInsensitive { options.insert(.caseInsensitive) }
        return text.range(of: target, options: options).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
    }
    static func formatted(_ format: String, _ arguments: [any CVarArg]) -> String { String(format: format, arguments: arguments) }
    static func percentEncoded(_ text: String) -> String? { text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) }
    static func percentDecoded(_ text: String) -> String? { text.removingPercentEncoding }
    static func appending(_ path: String, _ component: String) -> String { (path as NSString).appendingPathComponent(component) }
    static func last(_ path: String) -> String { (path as NSString).lastPathComponent }
    static func standardized(_ path: String) -> String { (path as NSString).standardizingPath }
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
