import EntraHTTP
import FoundationGaps

/// Times and durations as the console shows them; formatted by hand (no DateFormatter, no ICU).
enum ConsoleFormat {
    /// `2026-11-23 18:04:05Z`.
    static func dateTime(_ date: Date) -> String {
        let iso = InternetDate.format(secondsSince1970: date.timeIntervalSince1970)
        return String(iso.prefix(19)).replacingOccurrences(of: "T", with: " ") + "Z"
    }

    /// `09:41:07.123` of an ISO 8601 time.
    static func clockTime(_ date: Date) -> String {
        let iso = InternetDate.format(secondsSince1970: date.timeIntervalSince1970)
        guard let t = iso.firstIndex(of: "T") else { return iso }
        return String(iso[iso.index(after: t)...].prefix(12)).replacingOccurrences(of: "Z", with: "")
    }

    /// `in 59 min`, `3 h ago`, relative to the virtual clock.
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<60: text = "\(Int(magnitude)) s"
        case ..<3600: text = "\(Int(magnitude / 60)) min"
        case ..<172_800: text = String(format: "%.1f h", magnitude / 3600)
        default: text = "\(Int(magnitude / 86400)) days"
        }
        if magnitude < 1 { return "now" }
        return seconds > 0 ? "in \(text)" : "\(text) ago"
    }

    /// A signed offset for the clock table: `+1 h 30 min`, `0 s`.
    static func offset(_ seconds: TimeInterval) -> String {
        let sign = seconds < 0 ? "−" : "+"
        var rest = Int(abs(seconds).rounded())
        guard rest > 0 else { return "0 s" }
        var parts: [String] = []
        for (unit, size) in [("d", 86400), ("h", 3600), ("min", 60), ("s", 1)] where rest >= size {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        return sign + parts.joined(separator: " ")
    }
}
