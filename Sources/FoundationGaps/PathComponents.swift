// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
package import FoundationEssentials

/// The path edits FakeEntra makes on file-system paths, as `NSString`'s path methods make them, without
/// `NSString`.
extension String {
    package func appendingPathComponent(_ component: String) -> String {
        if isEmpty { return component }
        if component.isEmpty { return self }
        return (hasSuffix("/") ? self : self + "/") + (component.hasPrefix("/") ? String(component.dropFirst()) : component)
    }

    package var lastPathComponent: String {
        if self == "/" { return self }
        let trimmed = count > 1 && hasSuffix("/") ? String(dropLast()) : self
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? trimmed
    }

    package var deletingLastPathComponent: String {
        let trimmed = count > 1 && hasSuffix("/") ? String(dropLast()) : self
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `~` and `~/…` with the home directory.
    package var expandingTildeInPath: String {
        guard hasPrefix("~"), count == 1 || dropFirst().hasPrefix("/") else { return self }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + dropFirst()
    }

    /// `.` and `..` resolved, repeated and trailing slashes removed, `~` expanded.
    package var standardizingPath: String {
        let path = expandingTildeInPath
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else if part != ".." || !absolute { parts.append(part) }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
#endif
