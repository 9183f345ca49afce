import EntraHTTP

/// Formats access log lines. Query values can carry secrets (codes, tokens, passwords), so only
/// parameter names are kept: `/token?grant_type=…&code=…`; a query piece without `=` (which may be a
/// bare value) and a path segment shaped like a token or a random opaque value (`SecretShape`) are
/// shown as `…`.
package enum AccessLog {
    package static func redactedTarget(_ target: String) -> String {
        var path = target
        if target.utf8.contains(where: { $0 == UInt8(ascii: "#") }), let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        let question = path.utf8.contains(where: { $0 == UInt8(ascii: "?") }) ? path.firstIndex(of: "?") : nil
        let pathPart = question.map { path[..<$0] } ?? path[...]
        let shownPath = pathPart.utf8.count < 20 ? String(pathPart)
            : pathPart.split(separator: "/", omittingEmptySubsequences: false).map { SecretShape.isSecret($0) || SecretShape.looksRandom($0) ? "…" : String($0) }.joined(separator: "/")
        guard let question else { return shownPath }
        let names = path[path.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let eq = pair.firstIndex(of: "=") else { return "…" }
            return "\(pair[..<eq])=…"
        }
        return shownPath + (names.isEmpty ? "" : "?" + names.joined(separator: "&"))
    }

    package static func line(method: String, target: String, status: Int, nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(sanitised(method)) \(sanitised(redactedTarget(target))) \(status) \(tenths / 10).\(tenths % 10)ms"
    }

    /// A log line must stay one line whatever the client sent.
    private static func sanitised(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        return String(decoding: text.utf8.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
