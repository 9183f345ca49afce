import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform

/// An event of a user's calendar, its times resolved against the platform clock.
struct CalendarEvent: Equatable {
    var id: String
    var changeKey: String
    var iCalUId: String
    var subject: String
    var body: String
    var bodyContentType: String
    /// Instants bounding the event; for all-day events, midnight to midnight in `originalZone`.
    var start: Date
    var end: Date
    var isAllDay: Bool
    var allDayDates: (start: CivilTime, end: CivilTime)?
    var originalZone: GraphTimeZone
    var location: String?
    var organizer: GraphEventSpec.Address
    var isOrganizer: Bool
    var attendees: [GraphEventSpec.Attendee]
    var showAs: String
    var importance: String
    var categories: [String]
    var isOnlineMeeting: Bool
    var created: Date
    var isPersonalAccount: Bool

    /// Ten years: longer configured durations are cut to this (and arithmetic never overflows).
    static let longestDurationMinutes = 10 * 366 * 1440

    static func == (a: CalendarEvent, b: CalendarEvent) -> Bool { a.id == b.id && a.changeKey == b.changeKey }

    /// The user's events, relative times read against `now`; specs with unreadable times are skipped
    /// (`GraphDataset.validationProblems` reports them at load).
    static func events(of user: DirectoryUser, personal: Bool, content: GraphUserContent?, now: Date) -> [CalendarEvent] {
        let mailboxZone = content?.mailboxZone ?? .utc
        return (content?.events ?? []).enumerated().compactMap { index, spec in
            event(index: index, spec: spec, user: user, personal: personal, defaultZone: mailboxZone, now: now)
        }
    }

    private static func event(index: Int, spec: GraphEventSpec, user: DirectoryUser, personal: Bool, defaultZone: GraphTimeZone, now: Date) -> CalendarEvent? {
        guard let startTime = EventTime(parsing: spec.start) else { return nil }
        let zone = spec.timeZone.flatMap(GraphTimeZone.init(named:)) ?? defaultZone
        let isAllDay = spec.isAllDay ?? !startTime.hasTimeOfDay
        var startCivil = startTime.civil(now: now, zone: zone)
        var endCivil: CivilTime
        if let endText = spec.end {
            guard let endTime = EventTime(parsing: endText) else { return nil }
            endCivil = endTime.civil(now: now, zone: zone)
        } else if isAllDay {
            let days = min(max(1, (spec.durationMinutes ?? 1440) / 1440), Self.longestDurationMinutes / 1440)
            let (y, m, d) = CivilTime.civil(fromDays: startCivil.daysSinceEpoch + days)
            endCivil = CivilTime(year: y, month: m, day: d)
        } else {
            endCivil = zone.civil(zone.instant(of: startCivil).addingTimeInterval(TimeInterval(min(max(spec.durationMinutes ?? 30, 0), Self.longestDurationMinutes)) * 60))
        }
        if isAllDay {
            startCivil = CivilTime(year: startCivil.year, month: startCivil.month, day: startCivil.day)
            endCivil = CivilTime(year: endCivil.year, month: endCivil.month, day: endCivil.day)
        }
        let start = zone.instant(of: startCivil)
        let end = max(start, zone.instant(of: endCivil))
        let ownAddress = user.mail ?? user.userPrincipalName
        let organizer = spec.organizer ?? .init(name: user.displayName, address: ownAddress)
        let digest = Digest.sha256("\(user.id)|\(index)|\(spec.subject)|\(CalendarRange.wholeSeconds(start.timeIntervalSince1970))".utf8)
        let id = spec.id ?? "AAMkAG" + Base64URL.encode(digest.prefix(30)) + "AAA="
        let changeKey = Base64URL.encode(digest.suffix(12))
        let iCalUId = "040000008200E00074C5B7101A82E00800000000" + Hex.uppercase(digest.prefix(24))
        return CalendarEvent(
            id: id, changeKey: changeKey, iCalUId: iCalUId, subject: spec.subject, body: spec.body ?? "",
            bodyContentType: spec.bodyContentType?.lowercased() == "html" ? "html" : "text",
            start: start, end: end, isAllDay: isAllDay, allDayDates: isAllDay ? (startCivil, endCivil) : nil,
            originalZone: zone, location: spec.location, organizer: organizer,
            isOrganizer: organizer.address.caseInsensitiveCompare(ownAddress) == .orderedSame || user.answers(to: organizer.address),
            attendees: spec.attendees ?? [], showAs: spec.showAs ?? (isAllDay ? "free" : "busy"),
            importance: spec.importance ?? "normal", categories: spec.categories ?? [], isOnlineMeeting: spec.isOnlineMeeting ?? false,
            created: start.addingTimeInterval(-14 * 86400), isPersonalAccount: personal
        )
    }

    /// Plain text of the body, whitespace collapsed, at most 255 characters (Outlook's `bodyPreview`).
    var bodyPreview: String {
        var text = body
        if bodyContentType == "html" {
            text = text.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "&nbsp;", with: " ").replacingOccurrences(of: "&amp;", with: "&")
        }
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return String(collapsed.prefix(255))
    }
}
