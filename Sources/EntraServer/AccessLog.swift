/// Formats access log lines. Query values can carry secrets (codes, tokens, passwords), so only
/// parameter names are kept: `/token?grant_type=…&code=…`.
public enum AccessLog {
    public static func redactedTarget(_ target: String) -> String {
        var path = target
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        guard let question = path.firstIndex(of: "?") else { return path }
        let names = path[path.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return "\(name)=…"
        }
        return String(path[..<question]) + (names.isEmpty ? "" : "?" + names.joined(separator: "&"))
    }

    public static func line(method: String, target: String, status: Int, nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(sanitised(method)) \(sanitised(redactedTarget(target))) \(status) \(tenths / 10).\(tenths % 10)ms"
    }

    /// A log line must stay one line whatever the client sent.
    private static func sanitised(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        return String(decoding: text.utf8.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
