import FoundationGaps

/// A parsed event time from the config: an absolute instant, a wall-clock reading in the event's zone, or a
/// reading relative to the current week (see `GraphEventSpec`).
enum EventTime: Equatable {
    /// Carried its own offset (`Z`, `+02:00`).
    case instant(Date)
    /// A wall-clock date (and time) to read in the event's zone.
    case wallClock(CivilTime, hasTime: Bool)
    /// `weekOffset` weeks from this ISO week, `weekday` 1 = Monday, or `dayOffset` days from today.
    case relative(Relative, hour: Int?, minute: Int)

    enum Relative: Equatable {
        case weekday(Int, weekOffset: Int)
        case day(offset: Int)
    }

    init?(parsing text: String) {
        if let parsed = CivilTime.parseISO(text) {
            let hasTime = text.contains("T") || text.contains(" ")
            if let offset = parsed.offset {
                self = .instant(parsed.time.instant(offset: offset))
            } else {
                self = .wallClock(parsed.time, hasTime: hasTime)
            }
            return
        }
        var words = text.lowercased().split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        var weekOffset = 0
        if words[0] == "next" || words[0] == "last" {
            weekOffset = words[0] == "next" ? 1 : -1
            words.removeFirst()
        }
        guard let dayWord = words.first, words.count <= 2 else { return nil }
        let relative: Relative
        if let weekday = Self.weekdays.firstIndex(where: { dayWord.hasPrefix($0) && dayWord.count >= 3 }) {
            relative = .weekday(weekday + 1, weekOffset: weekOffset)
        } else if weekOffset == 0, let offset = ["yesterday": -1, "today": 0, "tomorrow": 1][dayWord] {
            relative = .day(offset: offset)
        } else {
            return nil
        }
        guard words.count == 2 else {
            self = .relative(relative, hour: nil, minute: 0)
            return
        }
        let clock = words[1].split(separator: ":")
        guard clock.count == 2, let hour = Int(clock[0]), let minute = Int(clock[1]), (0..<24).contains(hour), (0..<60).contains(minute) else {
            return nil
        }
        self = .relative(relative, hour: hour, minute: minute)
    }

    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Whether the text named a time of day (false: a whole day, for all-day events).
    var hasTimeOfDay: Bool {
        switch self {
        case .instant: true
        case .wallClock(_, let hasTime): hasTime
        case .relative(_, let hour, _): hour != nil
        }
    }

    /// The wall-clock reading in `zone` this time names, relative forms read against `now`.
    func civil(now: Date, zone: GraphTimeZone) -> CivilTime {
        switch self {
        case .instant(let date):
            return zone.civil(date)
        case .wallClock(let time, _):
            return time
        case .relative(let relative, let hour, let minute):
            let today = zone.civil(now)
            let days: Int = switch relative {
            case .day(let offset): today.daysSinceEpoch + offset
            case .weekday(let weekday, let weekOffset): today.daysSinceEpoch - (today.isoWeekday - 1) + weekOffset * 7 + weekday - 1
            }
            let (y, m, d) = CivilTime.civil(fromDays: days)
            return CivilTime(year: y, month: m, day: d, hour: hour ?? 0, minute: minute)
        }
    }
}
