import EntraHTTP
import FoundationGaps
import LocatedJSON
import ExchangeKernel
import IdentityPlatform

/// `/me/events`, `/me/events/{id}`, `/me/calendarView` and their `/users/{id}/…` forms.
extension GraphResources {
    private static let listOptions: Set<String> = ["$select", "$top", "$skip", "$orderby", "$filter", "$count"]

    func events(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(Self.listOptions)
        let user = try resolve(subject, access: .mailbox)
        return try list(calendar(of: user), of: user, segment: "events")
    }

    /// `/calendars/{id}/events` and `/calendars/{id}/calendarView`: the one calendar's items, for the id
    /// `/calendars` lists; another id is Outlook's 404.
    func calendarItems(_ subject: GraphSubject, calendarID: String, view: Bool) throws(GraphError) -> HTTPResponse {
        let user = try resolve(subject, access: .mailbox)
        guard calendarID == Self.calendarID(of: user) else { throw .eventNotFound }
        let segment = "calendars('\(calendarID)')/\(view ? "calendarView" : "events")"
        if view { return try calendarView(subject, segment: segment) }
        try exchange.query.requireOnly(Self.listOptions)
        return try list(calendar(of: user), of: user, segment: segment)
    }

    func event(_ subject: GraphSubject, id: String) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .mailbox)
        guard let event = calendar(of: user).first(where: { $0.id == id }) else { throw .eventNotFound }
        let selected = try exchange.query.selected(from: EventView.properties, type: "event")
        let zone = GraphTimeZone.preferred(by: exchange.request.headers)
        let context = "\(exchange.metadataURL)#\(usersSegment(user))/events\(selected.map { "(\($0.joined(separator: ",")))" } ?? "")/$entity"
        let bodyType = EventBodyType.preferred(by: exchange.request.headers)
        let members = EventView.members(event, zone: zone ?? .utc, selected: selected, bodyType: bodyType ?? .html)
        // On v1.0 one event names its calendar by reference and by navigation; beta names it in neither
        // (recorded event-get examples of both versions).
        let calendar = "\(exchange.serviceRootURL)/\(usersSegment(user))/calendars('\(Self.calendarID(of: user))')"
        let links: [(String, JSONValue)] = exchange.version == "beta" ? [] : [
            ("calendar@odata.associationLink", .string(calendar + "/$ref")), ("calendar@odata.navigationLink", .string(calendar)),
        ]
        return exchange.ok(.object([("@odata.context", .string(context))] + members + links), extraHeaders: preferenceApplied(zone: zone, pageSize: nil, bodyType: bodyType))
    }

    /// Events overlapping `[startDateTime, endDateTime)`; both parameters are required. Times without an offset
    /// are UTC, whatever `Prefer: outlook.timezone` says (as Graph documents).
    func calendarView(_ subject: GraphSubject, segment: String = "calendarView") throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(Self.listOptions)
        let parameters = exchange.query.parameters
        let value = { (name: String) in parameters.pairs.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        guard let startText = value("startDateTime"), let endText = value("endDateTime") else { throw .calendarViewWindowRequired }
        guard let start = Self.parseWindowEdge(startText) else { throw .invalidDateTimeParameter("StartDateTime", value: startText) }
        guard let end = Self.parseWindowEdge(endText) else { throw .invalidDateTimeParameter("EndDateTime", value: endText) }
        let window = (start.time.instant(offset: start.offset ?? 0), end.time.instant(offset: end.offset ?? 0))
        guard window.1 >= window.0 else { throw .calendarViewWindowReversed }
        let user = try resolve(subject, access: .mailbox)
        let inWindow = calendar(of: user).filter { event in
            event.start < window.1 && (event.end > window.0 || (event.start == event.end && event.start >= window.0))
        }
        return try list(inWindow, of: user, segment: segment)
    }

    /// `/me/calendar`: the default calendar.
    func defaultCalendar(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .mailbox)
        let context = "\(exchange.metadataURL)#\(usersSegment(user))/calendar/$entity"
        return exchange.ok(.object([("@odata.context", .string(context))] + calendarMembers(of: user)))
    }

    /// `/me/calendars/{id}`: the user's one calendar, by its id.
    func calendar(_ subject: GraphSubject, id: String) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .mailbox)
        guard id == Self.calendarID(of: user) else { throw .eventNotFound }
        let context = "\(exchange.metadataURL)#\(usersSegment(user))/calendars/$entity"
        return exchange.ok(.object([("@odata.context", .string(context))] + calendarMembers(of: user)))
    }

    /// `/me/calendars`: the user's one calendar.
    func calendars(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select", "$top"])
        let user = try resolve(subject, access: .mailbox)
        return exchange.ok(.object([
            ("@odata.context", .string("\(exchange.metadataURL)#\(usersSegment(user))/calendars")),
            ("value", .array([.object([("@odata.id", .string("\(exchange.serviceRootURL)/\(entityKey(of: user))/calendars('\(Self.calendarID(of: user))')"))] + calendarMembers(of: user))])),
        ]))
    }

    static func calendarID(of user: DirectoryUser) -> String {
        "AAMkAG" + String(user.id.replacingOccurrences(of: "-", with: "").prefix(24)) + "AAA="
    }

    private func calendarMembers(of user: DirectoryUser) -> [(String, JSONValue)] {
        let id = Self.calendarID(of: user)
        let address = user.mail ?? user.userPrincipalName
        return [
            ("id", .string(id)), ("name", .string("Calendar")), ("color", .string("auto")),
            ("hexColor", .string("")), ("isDefaultCalendar", .bool(true)), ("changeKey", .string(String(id.suffix(16)))),
            ("canShare", .bool(true)), ("canViewPrivateItems", .bool(true)), ("canEdit", .bool(true)),
            ("allowedOnlineMeetingProviders", .strings(["teamsForBusiness"])),
            ("defaultOnlineMeetingProvider", .string("teamsForBusiness")), ("isTallyingResponses", .bool(true)),
            ("isRemovable", .bool(false)),
            ("owner", .object([("name", .string(user.displayName)), ("address", .string(address))])),
        ]
    }

    /// ISO 8601; an unescaped `+` of an offset arrives as a space (query decoding) and is read back as `+`.
    static func parseWindowEdge(_ text: String) -> (time: CivilTime, offset: Int?)? {
        if let parsed = CivilTime.parseISO(text) { return parsed }
        guard let space = text.lastIndex(of: " "), text.distance(from: space, to: text.endIndex) >= 5 else { return nil }
        return CivilTime.parseISO(text.replacingCharacters(in: space...space, with: "+"))
    }

    func calendar(of user: DirectoryUser) -> [CalendarEvent] {
        let personal = directory.tenant(id: user.tenantID)?.kind == .consumers
        return CalendarEvent.events(of: user, personal: personal, content: dataset.content(for: user), now: exchange.now)
    }

    /// One page of `events` with `$select`, `$orderby` (default: start time), `$top`/`Prefer: odata.maxpagesize`,
    /// `$skip` and an absolute `@odata.nextLink` on the request's origin.
    private func list(_ events: [CalendarEvent], of user: DirectoryUser, segment: String) throws(GraphError) -> HTTPResponse {
        let selected = try exchange.query.selected(from: EventView.properties, type: "event")
        var events = events
        if let filter = exchange.query.options["$filter"] {
            let parsed = try EventFilter(parsing: filter)
            events = events.filter(parsed.matches)
        }
        var sorted = events.sortedStably { $0.start < $1.start }
        for key in exchange.query.orderBy.reversed() {
            guard let sortKey = EventView.sortKey(key.property) else { throw .unknownProperty(key.property, type: "event", inSelect: false) }
            sorted = sorted.sortedStably { key.descending ? sortKey($0) > sortKey($1) : sortKey($0) < sortKey($1) }
        }
        let preferredSize = Self.maxPageSize(exchange.request.headers)
        let pageSize = try exchange.query.top ?? preferredSize ?? exchange.options.eventPageSize
        let skip = try exchange.query.skip ?? 0
        let zone = GraphTimeZone.preferred(by: exchange.request.headers)
        let bodyType = EventBodyType.preferred(by: exchange.request.headers)
        let page = sorted.dropFirst(skip).prefix(pageSize)
        let context = "\(exchange.metadataURL)#\(usersSegment(user))/\(segment)\(selected.map { "(\($0.joined(separator: ",")))" } ?? "")"
        var body: [(String, JSONValue)] = [("@odata.context", .string(context))]
        if exchange.query.options["$count"]?.lowercased() == "true" { body.append(("@odata.count", .int(sorted.count))) }
        body.append(("value", .array(page.map { EventView.json($0, zone: zone ?? .utc, selected: selected, bodyType: bodyType ?? .html) })))
        if pageSize > 0, skip < sorted.count, sorted.count - skip > pageSize {
            let link = NextLink.url(origin: exchange.origin, request: exchange.request, setting: "$skip", to: String(skip + pageSize))
            body.append(("@odata.nextLink", .string(link)))
        }
        let applied = preferenceApplied(zone: zone, pageSize: exchange.query.options["$top"] == nil ? preferredSize : nil, bodyType: bodyType)
        return exchange.ok(.object(body), extraHeaders: applied)
    }

    private func preferenceApplied(zone: GraphTimeZone?, pageSize: Int?, bodyType: EventBodyType?) -> HTTPHeaders {
        var applied: [String] = []
        if let pageSize { applied.append("odata.maxpagesize=\(pageSize)") }
        if let zone { applied.append("outlook.timezone=\"\(zone.name)\"") }
        if let bodyType { applied.append("outlook.body-content-type=\"\(bodyType.rawValue)\"") }
        return applied.isEmpty ? [:] : ["Preference-Applied": applied.joined(separator: ",")]
    }

    /// `Prefer: odata.maxpagesize=N`.
    static func maxPageSize(_ headers: HTTPHeaders) -> Int? {
        for value in headers.values(for: "Prefer") {
            for preference in value.split(separator: ",") {
                let parts = preference.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0].lowercased() == "odata.maxpagesize", let size = Int(parts[1]), size > 0 { return size }
            }
        }
        return nil
    }
}
