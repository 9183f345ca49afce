// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
package import FoundationEssentials

/// The string searches and edits FakeEntra uses that FoundationEssentials leaves to the
/// internationalization half: literal or regular-expression, optionally ignoring case (by simple case
/// folding, which is what every caller compares: header names, codes, identifiers).
extension StringProtocol {
    package func trimmingCharacters(in set: CharacterSet) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !set.contains($0) }), let last = scalars.lastIndex(where: { !set.contains($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    package func range(of other: some StringProtocol, options: String.CompareOptions = []) -> Range<Index>? {
        let text = String(self)
        let found: Range<String.Index>?
        if options.contains(.regularExpression) {
            guard let regex = try? Regex(options.contains(.caseInsensitive) ? "(?i)" + String(other) : String(other)) else { return nil }
            found = text.firstMatch(of: regex)?.range
        } else if options.contains(.caseInsensitive) {
            let matches = text.caseInsensitiveRanges(of: String(other))
            found = options.contains(.backwards) ? matches.last : matches.first
        } else {
            found = options.contains(.backwards) ? text.ranges(of: String(other)).last : text.firstRange(of: String(other))
        }
        guard let found else { return nil }
        let lower = index(startIndex, offsetBy: text.distance(from: text.startIndex, to: found.lowerBound))
        let upper = index(lower, offsetBy: text.distance(from: found.lowerBound, to: found.upperBound))
        return lower..<upper
    }

    package func replacingOccurrences(of target: some StringProtocol, with replacement: some StringProtocol,
                                     options: String.CompareOptions = []) -> String {
        let text = String(self)
        if options.contains(.regularExpression) {
            guard let regex = try? Regex(options.contains(.caseInsensitive) ? "(?i)" + String(target) : String(target)) else { return text }
            return text.replacing(regex, with: String(replacement))
        }
        if options.contains(.caseInsensitive) {
            var result = "", cursor = text.startIndex
            for match in text.caseInsensitiveRanges(of: String(target)) {
                result += text[cursor..<match.lowerBound] + replacement
                cursor = match.upperBound
            }
            return result + text[cursor...]
        }
        guard !target.isEmpty else { return text }
        return text.replacing(String(target), with: String(replacement))
    }

    package func caseInsensitiveCompare(_ other: some StringProtocol) -> ComparisonResult {
        let (a, b) = (String(self).lowercased(), String(other).lowercased())
        return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
    }

    package func compare(_ other: some StringProtocol, options: String.CompareOptions = []) -> ComparisonResult {
        if options.contains(.caseInsensitive) { return caseInsensitiveCompare(other) }
        let (a, b) = (String(self), String(other))
        return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
    }

    /// Case-insensitive order by Unicode scalar values (no collation tables: `é` sorts after `z`).
    package func localizedCaseInsensitiveCompare(_ other: some StringProtocol) -> ComparisonResult { caseInsensitiveCompare(other) }

    package func replacingCharacters(in range: some RangeExpression<Index>, with replacement: some StringProtocol) -> String {
        var text = String(self)
        let bounds = range.relative(to: self)
        let lower = text.index(text.startIndex, offsetBy: distance(from: startIndex, to: bounds.lowerBound))
        let upper = text.index(lower, offsetBy: distance(from: bounds.lowerBound, to: bounds.upperBound))
        text.replaceSubrange(lower..<upper, with: replacement)
        return text
    }

    /// Cut or padded with `pad` to `length` characters (`startingAt` is always 0 here).
    package func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        let text = String(self)
        if text.count >= length { return String(text.prefix(length)) }
        var padded = text
        while padded.count < length { padded += pad }
        return String(padded.prefix(length))
    }

    package func localizedCaseInsensitiveContains(_ other: some StringProtocol) -> Bool {
        String(self).lowercased().contains(String(other).lowercased())
    }

    /// Percent-encodes every UTF-8 byte of a scalar not in `allowed`.
    package func addingPercentEncoding(withAllowedCharacters allowed: CharacterSet) -> String? {
        var result = ""
        for scalar in unicodeScalars {
            if allowed.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) }
            }
        }
        return result
    }

    /// nil when a `%` is not followed by two hexadecimal digits or the bytes are not UTF-8.
    package var removingPercentEncoding: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    /// Where `target` occurs, comparing lowercased text scalar by scalar (so indices stay this string's).
    fileprivate func caseInsensitiveRanges(of target: String) -> [Range<String.Index>] {
        let needle = Array(target.lowercased().unicodeScalars)
        guard !needle.isEmpty else { return [] }
        var found: [Range<String.Index>] = []
        let scalars = unicodeScalars
        var start = scalars.startIndex
        while start < scalars.endIndex {
            var cursor = start, matched = 0
            while matched < needle.count, cursor < scalars.endIndex,
                  String(scalars[cursor]).lowercased().unicodeScalars.elementsEqual([needle[matched]]) {
                matched += 1
                cursor = scalars.index(after: cursor)
            }
            if matched == needle.count {
                found.append(start..<cursor)
                start = cursor
            } else {
                start = scalars.index(after: start)
            }
        }
        return found
    }

    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

extension Error {
    /// What went wrong, in words (Foundation's `localizedDescription` without its localization tables).
    package var localizedDescription: String {
        if let error = self as? CocoaError, let path = error.filePath {
            switch error.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "The file “\(path)” doesn’t exist."
            case .fileReadNoPermission, .fileWriteNoPermission: return "You don’t have permission to access “\(path)”."
            default: return "The file “\(path)” couldn’t be accessed (\(error.code.rawValue))."
            }
        }
        return String(describing: self)
    }
}
#endif
