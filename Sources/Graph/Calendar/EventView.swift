import EntraHTTP
import FoundationGaps
import LocatedJSON

/// An event as Graph's `microsoft.graph.event` JSON, times shown in one zone.
enum EventView {
    /// Every property, in the order Graph writes them.
    static let properties = [
        "createdDateTime", "lastModifiedDateTime", "changeKey", "categories", "transactionId", "originalStartTimeZone",
        "originalEndTimeZone", "iCalUId", "uid", "reminderMinutesBeforeStart", "isReminderOn", "hasAttachments", "subject",
        "bodyPreview", "importance", "sensitivity", "isAllDay", "isCancelled", "isOrganizer", "responseRequested",
        "seriesMasterId", "showAs", "type", "webLink", "onlineMeetingUrl", "isOnlineMeeting", "onlineMeetingProvider",
        "allowNewTimeProposals", "isDraft", "hideAttendees", "responseStatus", "body", "start", "end", "location",
        "locations", "recurrence", "attendees", "organizer", "onlineMeeting",
    ]

    /// Properties `$orderby` accepts, with the value each sorts on.
    static func sortKey(_ property: String) -> ((CalendarEvent) -> String)? {
        switch property.lowercased() {
        case "start/datetime", "start": { isoKey($0.start) }
        case "end/datetime", "end": { isoKey($0.end) }
        case "subject": { $0.subject.lowercased() }
        case "createddatetime", "lastmodifieddatetime": { isoKey($0.created) }
        case "importance": { $0.importance }
        case "showas": { $0.showAs }
        default: nil
        }
    }

    private static func isoKey(_ date: Date) -> String { CivilTime(date).isoSeconds }

    /// `@odata.etag`, `id`, then `selected` (all properties when nil): Outlook always returns the first two.
    static func json(_ event: CalendarEvent, zone: GraphTimeZone, selected: [String]?, bodyType: EventBodyType = .html) -> JSONValue {
        .object(members(event, zone: zone, selected: selected, bodyType: bodyType))
    }

    static func members(_ event: CalendarEvent, zone: GraphTimeZone, selected: [String]?, bodyType: EventBodyType = .html) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("@odata.etag", .string("W/\"\(event.changeKey)\"")), ("id", .string(event.id))]
        for property in selected ?? properties {
            if property == "body" {
                members.append(("body", bodyType.render(event)))
            } else {
                members.append((property, value(property, of: event, zone: zone)))
            }
        }
        return members
    }

    private static let noResponseTime = "0001-01-01T00:00:00Z"

    private static func value(_ property: String, of event: CalendarEvent, zone: GraphTimeZone) -> JSONValue {
        switch property {
        case "createdDateTime", "lastModifiedDateTime": return .string(CivilTime(event.created).isoSevenDigits + "Z")
        case "changeKey": return .string(event.changeKey)
        case "categories": return .strings(event.categories)
        case "originalStartTimeZone", "originalEndTimeZone": return .string(event.originalZone.name)
        // `uid` names the event across calendars as iCalUId does (captured v1.0 answers carry both).
        case "iCalUId", "uid": return .string(event.iCalUId)
        case "reminderMinutesBeforeStart": return .int(event.isAllDay ? 1080 : 15)
        case "isReminderOn": return .bool(!event.isAllDay)
        case "hasAttachments", "isCancelled", "isDraft", "hideAttendees": return .bool(false)
        case "subject": return .string(event.subject)
        case "bodyPreview": return .string(event.bodyPreview)
        case "importance": return .string(event.importance)
        case "sensitivity": return .string("normal")
        case "isAllDay": return .bool(event.isAllDay)
        case "isOrganizer": return .bool(event.isOrganizer)
        case "responseRequested", "allowNewTimeProposals": return .bool(true)
        case "showAs": return .string(event.showAs)
        case "type": return .string("singleInstance")
        case "webLink":
            let host = event.isPersonalAccount ? "outlook.live.com" : "outlook.office365.com"
            return .string("https://\(host)/owa/?itemid=\(FormCoding.encodeComponent(event.id))&exvsurl=1&path=/calendar/item")
        case "isOnlineMeeting": return .bool(event.isOnlineMeeting)
        case "onlineMeetingProvider": return .string(event.isOnlineMeeting ? "teamsForBusiness" : "unknown")
        case "onlineMeetingUrl", "transactionId", "seriesMasterId", "recurrence": return .null
        case "onlineMeeting":
            guard event.isOnlineMeeting else { return .null }
            return .object([("joinUrl", .string("https://teams.microsoft.com/l/meetup-join/\(event.changeKey)"))])
        case "responseStatus":
            return .object([
                ("response", .string(event.isOrganizer ? "organizer" : "accepted")),
                ("time", .string(event.isOrganizer ? noResponseTime : CivilTime(event.created).isoSevenDigits + "Z")),
            ])
        case "start", "end": return dateTimeTimeZone(property == "start" ? event.start : event.end, event: event, isStart: property == "start", zone: zone)
        case "location": return location(event.location)
        // The same room as `location`, in the form Outlook writes list entries (recorded event-get examples).
        case "locations":
            return .array(event.location.map { name in
                [.object([("displayName", .string(name)), ("locationType", .string("default")),
                          ("uniqueId", .string("")), ("uniqueIdType", .string("unknown"))])]
            } ?? [])
        case "attendees":
            return .array(event.attendees.map { attendee in
                .object([
                    ("type", .string(attendee.type ?? "required")),
                    ("status", .object([
                        ("response", .string(attendee.response ?? "none")),
                        ("time", .string(noResponseTime)),
                    ])),
                    ("emailAddress", address(name: attendee.name, address: attendee.address)),
                ])
            })
        case "organizer": return .object([("emailAddress", address(name: event.organizer.name, address: event.organizer.address))])
        default: return .null
        }
    }

    private static func dateTimeTimeZone(_ instant: Date, event: CalendarEvent, isStart: Bool, zone: GraphTimeZone) -> JSONValue {
        // All-day events keep their dates whatever zone they are shown in, as Outlook shows them.
        let civil = event.allDayDates.map { isStart ? $0.start : $0.end } ?? zone.civil(instant)
        return .object([("dateTime", .string(civil.isoSevenDigits)), ("timeZone", .string(zone.name))])
    }

    private static func location(_ name: String?) -> JSONValue {
        guard let name else {
            return .object([
                ("displayName", .string("")), ("locationType", .string("default")),
                ("uniqueIdType", .string("unknown")), ("address", .object([])), ("coordinates", .object([])),
            ])
        }
        return .object([
            ("displayName", .string(name)), ("locationType", .string("default")),
            ("uniqueId", .string(name)), ("uniqueIdType", .string("private")),
        ])
    }

    private static func address(name: String?, address: String) -> JSONValue {
        .object([("name", .string(name ?? address)), ("address", .string(address))])
    }
}
