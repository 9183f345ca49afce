import EntraHTTP
package import FoundationGaps

/// A wall-clock date and time with no zone attached, and the arithmetic between it and instants.
/// Hand-written (days-from-civil) so formatting never depends on a shared `DateFormatter` or the host's locale.
package struct CivilTime: Sendable, Equatable, Comparable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The wall-clock reading of `instant` at `offset` seconds east of UTC (whole seconds). Total: an
    /// instant outside the years 0001–9999 (a far-moved virtual clock) reads as the nearest end of them.
    package init(_ instant: Date, offset: Int = 0) {
        let total = CalendarRange.wholeSeconds(instant.timeIntervalSince1970 + Double(offset))
        let days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let secondsOfDay = total - days * 86400
        let (y, m, d) = CivilTime.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: secondsOfDay / 3600, minute: secondsOfDay % 3600 / 60, second: secondsOfDay % 60)
    }

    /// The instant this wall-clock reading names at `offset` seconds east of UTC.
    package func instant(offset: Int = 0) -> Date {
        let days = CivilTime.days(fromCivil: year, month, day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hour * 3600 + minute * 60 + second - offset))
    }

    /// Days since 1970-01-01.
    package var daysSinceEpoch: Int { CivilTime.days(fromCivil: year, month, day) }

    /// 1 = Monday … 7 = Sunday (ISO 8601).
    package var isoWeekday: Int {
        let d = daysSinceEpoch
        // 1970-01-01 was a Thursday (4).
        return ((d % 7 + 7) % 7 + 3) % 7 + 1
    }

    package static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    /// `2025-01-01T12:00:00`
    package var isoSeconds: String {
        "\(pad(year, 4))-\(pad(month))-\(pad(day))T\(pad(hour)):\(pad(minute)):\(pad(second))"
    }

    /// `2025-01-01T12:00:00.0000000`: the form of Graph's `dateTimeTimeZone.dateTime`.
    package var isoSevenDigits: String { isoSeconds + ".0000000" }

    /// `Wed, 01 Jan 2025 12:00:00 GMT` (RFC 9110 IMF-fixdate); meaningful for a UTC reading.
    package var httpDate: String {
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[isoWeekday - 1]), \(pad(day)) \(months[month - 1]) \(pad(year, 4)) \(pad(hour)):\(pad(minute)):\(pad(second)) GMT"
    }

    private func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int { CivilDate.days(year: year, month: month, day: day) }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let date = CivilDate.date(daysSinceEpoch: days)
        return (date.year, date.month, date.day)
    }
}

extension CivilTime {
    /// Parses `2025-01-06`, `2025-01-06T09:00`, `…T09:00:00`, `…T09:00:00.1234567`, each optionally followed by
    /// `Z` or `±hh:mm`. Returns the wall-clock reading and the offset it carried (nil when none was written).
    package static func parseISO(_ text: String) -> (time: CivilTime, offset: Int?)? {
        let chars = Array(text.trimmingCharacters(in: .whitespaces))
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= chars.count else { return nil }
            let slice = chars[index..<index + width]
            guard slice.allSatisfy(\.isASCII), slice.allSatisfy(\.isNumber), let value = Int(String(slice)) else { return nil }
            index += width
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard index < chars.count, chars[index] == c else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var time = CivilTime(year: year, month: month, day: day)
        if index < chars.count, chars[index] == "T" || chars[index] == " " {
            index += 1
            guard let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
            time.hour = hour
            time.minute = minute
            if expect(":") {
                guard let second = number(2), second < 61 else { return nil }
                time.second = min(second, 59)
                if expect(".") {
                    let start = index
                    while index < chars.count, chars[index].isASCII, chars[index].isNumber { index += 1 }
                    guard index > start else { return nil }
                }
            }
        }
        var offset: Int?
        if index < chars.count {
            if expect("Z") || expect("z") {
                offset = 0
            } else if chars[index] == "+" || chars[index] == "-" {
                let sign = chars[index] == "-" ? -1 : 1
                index += 1
                guard let h = number(2) else { return nil }
                _ = expect(":")
                guard let m = number(2) else { return nil }
                offset = sign * (h * 3600 + m * 60)
            }
        }
        guard index == chars.count else { return nil }
        // Reject impossible dates such as 2025-02-30.
        let roundTrip = CivilTime(time.instant())
        guard roundTrip.day == day, roundTrip.month == month else { return nil }
        return (time, offset)
    }
}
