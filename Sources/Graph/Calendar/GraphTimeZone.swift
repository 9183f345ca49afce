package import EntraHTTP
package import FoundationGaps

/// A time zone as Outlook names them: `UTC`, Windows names (`Pacific Standard Time`) or IANA ids
/// (`Europe/Paris`). Offsets, daylight saving included, come from the system's tz database (`ZoneInfo`;
/// the image carries the database).
package struct GraphTimeZone: Sendable, Equatable {
    /// The name as the client or config wrote it; responses label times with it.
    package let name: String
    private let identifier: String

    package static let utc = GraphTimeZone(name: "UTC", identifier: "UTC")

    private init(name: String, identifier: String) {
        self.name = name
        self.identifier = identifier
    }

    package init?(named name: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if ["utc", "etc/utc", "coordinated universal time", "gmt", "z"].contains(trimmed.lowercased()) {
            self.init(name: trimmed, identifier: "UTC")
            return
        }
        let iana = Self.windowsNames.first { $0.key.caseInsensitiveCompare(trimmed) == .orderedSame }?.value ?? trimmed
        guard ZoneInfo.named(iana) != nil else { return nil }
        self.init(name: trimmed, identifier: iana)
    }

    /// Seconds east of UTC at `instant`.
    package func offset(at instant: Date) -> Int {
        identifier == "UTC" ? 0 : ZoneInfo.named(identifier)?.offset(at: instant) ?? 0
    }

    /// The instant a wall-clock reading in this zone names (the first one when DST repeats an hour).
    package func instant(of time: CivilTime) -> Date {
        let guess = time.instant(offset: 0)
        let first = time.instant(offset: offset(at: guess))
        return time.instant(offset: offset(at: first))
    }

    package func civil(_ instant: Date) -> CivilTime { CivilTime(instant, offset: offset(at: instant)) }

    /// The zone asked for with `Prefer: outlook.timezone="…"`, if any and known.
    package static func preferred(by headers: HTTPHeaders) -> GraphTimeZone? {
        for value in headers.values(for: "Prefer") {
            for preference in value.split(separator: ",") {
                let parts = preference.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0].lowercased() == "outlook.timezone" else { continue }
                return GraphTimeZone(named: parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        return nil
    }

    /// Windows time zone names most calendars use, with their IANA equivalents (CLDR's windowsZones).
    static let windowsNames: [String: String] = [
        "Pacific Standard Time": "America/Los_Angeles", "Mountain Standard Time": "America/Denver",
        "Central Standard Time": "America/Chicago", "Eastern Standard Time": "America/New_York",
        "Alaskan Standard Time": "America/Anchorage", "Hawaiian Standard Time": "Pacific/Honolulu",
        "Atlantic Standard Time": "America/Halifax", "SA Pacific Standard Time": "America/Bogota",
        "E. South America Standard Time": "America/Sao_Paulo", "GMT Standard Time": "Europe/London",
        "Greenwich Standard Time": "Atlantic/Reykjavik", "W. Europe Standard Time": "Europe/Berlin",
        "Romance Standard Time": "Europe/Paris", "Central Europe Standard Time": "Europe/Budapest",
        "Central European Standard Time": "Europe/Warsaw", "E. Europe Standard Time": "Europe/Chisinau",
        "FLE Standard Time": "Europe/Kiev", "GTB Standard Time": "Europe/Bucharest", "Russian Standard Time": "Europe/Moscow",
        "Israel Standard Time": "Asia/Jerusalem", "Arabian Standard Time": "Asia/Dubai", "India Standard Time": "Asia/Kolkata",
        "China Standard Time": "Asia/Shanghai", "Singapore Standard Time": "Asia/Singapore", "Tokyo Standard Time": "Asia/Tokyo",
        "Korea Standard Time": "Asia/Seoul", "AUS Eastern Standard Time": "Australia/Sydney",
        "New Zealand Standard Time": "Pacific/Auckland", "South Africa Standard Time": "Africa/Johannesburg",
    ]
}
