import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
import EntraHTTP
@testable import Graph

@Suite("Events and calendarView")
struct EventTests {
    let fixture = GraphFixture()
    let origin = "https://127.0.0.1:8443"
    let week = "startDateTime=2025-01-06T00:00:00Z&endDateTime=2025-01-13T00:00:00Z"

    /// Follows `@odata.nextLink` from `target` until it runs out; returns every page.
    func pages(_ target: String, token: String, headers: [(String, String)] = []) -> [[[String: Any]]] {
        var next: String? = target
        var result: [[[String: Any]]] = []
        while let current = next, result.count < 20 {
            let response = fixture.get(current, token: token, headers: headers)
            #expect(response.status == .ok, "\(current): \(response.bodyText)")
            result.append(response.values)
            next = (response.json["@odata.nextLink"] as? String).map { link in
                #expect(link.hasPrefix(origin + "/v1.0/"), "absolute on the request's origin: \(link)")
                return String(link.dropFirst(origin.count))
            }
        }
        return result
    }

    @Test func eventsPageByTenAndFollowToTheEnd() {
        let first = fixture.get("/v1.0/me/events", token: fixture.token())
        #expect(first.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/events")
        #expect(first.json["@odata.nextLink"] as? String == "\(origin)/v1.0/me/events?$skip=10")
        let all = pages("/v1.0/me/events", token: fixture.token())
        #expect(all.map(\.count) == [10, 2])
        let subjects = all.joined().compactMap { $0["subject"] as? String }
        #expect(subjects.first == "Vendor call: Fabrikam")
        #expect(subjects.last == "Team lunch")
        #expect(Set(all.joined().compactMap { $0["id"] as? String }).count == 12)
    }

    @Test func topAndSkipPage() {
        let all = pages("/v1.0/me/events?$top=5&$select=subject", token: fixture.token())
        #expect(all.map(\.count) == [5, 5, 2])
        let skipped = fixture.get("/v1.0/me/events?$top=2&$skip=3", token: fixture.token())
        #expect(skipped.values.compactMap { $0["subject"] as? String } == ["Product review: Contoso Mark 8", "Retail conference"])
        #expect(skipped.json["@odata.nextLink"] as? String == "\(origin)/v1.0/me/events?$top=2&$skip=5")
        let preferred = fixture.get("/v1.0/me/events", token: fixture.token(), headers: [("Prefer", "odata.maxpagesize=3")])
        #expect(preferred.values.count == 3)
        #expect(preferred.headers["Preference-Applied"] == "odata.maxpagesize=3")
    }

    @Test func selectKeepsIdAndEtag() {
        let response = fixture.get("/v1.0/me/events?$select=subject,start&$top=1", token: fixture.token())
        #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/events(subject,start)")
        let item = response.values.first ?? [:]
        #expect(Set(item.keys) == ["@odata.etag", "id", "subject", "start"])
        #expect(fixture.get("/v1.0/me/events?$select=subjekt", token: fixture.token()).errorMessage
            == "Parsing OData Select and Expand failed: Could not find a property named 'subjekt' on type 'microsoft.graph.event'.")
    }

    @Test func orderByProperties() {
        let bySubject = fixture.get("/v1.0/me/events?$orderby=subject%20desc&$top=20&$select=subject", token: fixture.token())
        let subjects = bySubject.values.compactMap { $0["subject"] as? String }
        #expect(subjects.count == 12)
        #expect(subjects == subjects.sorted { $0.lowercased() > $1.lowercased() })
        let byStartDesc = fixture.get("/v1.0/me/events?$orderby=start/dateTime%20desc&$top=1&$select=subject", token: fixture.token())
        #expect(byStartDesc.values.first?["subject"] as? String == "Team lunch")
        let unknown = fixture.get("/v1.0/me/events?$orderby=colour", token: fixture.token())
        #expect(unknown.status == .badRequest)
        #expect(unknown.errorMessage == "Could not find a property named 'colour' on type 'microsoft.graph.event'.")
    }

    @Test func eventHasGraphsShape() throws {
        let response = fixture.get("/v1.0/me/events?$top=3&$skip=2", token: fixture.token())
        let sync = try #require(response.values.first)
        #expect(Array(sync.keys).count == EventView.properties.count + 2)
        #expect(sync["subject"] as? String == "Weekly team sync")
        #expect((sync["@odata.etag"] as? String)?.hasPrefix("W/\"") == true)
        #expect(sync["start"] as? [String: String] == ["dateTime": "2025-01-06T17:00:00.0000000", "timeZone": "UTC"])
        #expect(sync["end"] as? [String: String] == ["dateTime": "2025-01-06T17:30:00.0000000", "timeZone": "UTC"])
        // Outlook answers bodies as HTML unless asked for text (recorded event-get examples).
        #expect(sync["body"] as? [String: String] == ["contentType": "html", "content": "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head><body><div>Agenda: sales figures, store openings, open issues.</div></body></html>"])
        let asText = fixture.get("/v1.0/me/events?$top=3&$skip=2", token: fixture.token(), headers: [("Prefer", "outlook.body-content-type=\"text\"")])
        #expect(asText.values.first?["body"] as? [String: String] == ["contentType": "text", "content": "Agenda: sales figures, store openings, open issues.\r\n"])
        #expect(asText.headers["Preference-Applied"] == "outlook.body-content-type=\"text\"")
        #expect(sync["bodyPreview"] as? String == "Agenda: sales figures, store openings, open issues.")
        #expect((sync["location"] as? [String: Any])?["displayName"] as? String == "Microsoft Teams Meeting")
        let organizer = (sync["organizer"] as? [String: Any])?["emailAddress"] as? [String: String]
        #expect(organizer == ["name": "Adele Vance", "address": "adele.vance@contoso.onmicrosoft.com"])
        let attendee = try #require((sync["attendees"] as? [[String: Any]])?.first)
        #expect(attendee["type"] as? String == "required")
        #expect((attendee["emailAddress"] as? [String: String])?["address"] == "alex.wilber@contoso.onmicrosoft.com")
        #expect(sync["isOrganizer"] as? Bool == true)
        #expect(sync["isAllDay"] as? Bool == false)
        #expect((sync["webLink"] as? String)?.hasPrefix("https://outlook.office365.com/owa/?itemid=AAMkAG") == true)
        let review = try #require(response.values.dropFirst().first)
        #expect(review["bodyPreview"] as? String == "Review the Mark 8 launch plan.")
        let conference = try #require(response.values.last)
        #expect(conference["isAllDay"] as? Bool == true)
        #expect(conference["start"] as? [String: String] == ["dateTime": "2025-01-08T00:00:00.0000000", "timeZone": "UTC"])
        #expect(conference["end"] as? [String: String] == ["dateTime": "2025-01-09T00:00:00.0000000", "timeZone": "UTC"])
    }

    @Test func singleEventByID() throws {
        let id = try #require(fixture.get("/v1.0/me/events?$top=1", token: fixture.token()).values.first?["id"] as? String)
        let response = fixture.get("/v1.0/me/events/\(id)?$select=subject", token: fixture.token())
        #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/events(subject)/$entity")
        #expect(response.json["subject"] as? String == "Vendor call: Fabrikam")
        #expect(fixture.get("/v1.0/me/events/AAMkAGnothing", token: fixture.token()).errorCode == "ErrorItemNotFound")
    }

    @Test func calendarViewOfThisWeek() {
        let response = fixture.get("/v1.0/me/calendarView?\(week)&$select=subject", token: fixture.token())
        #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/calendarView(subject)")
        #expect(response.values.compactMap { $0["subject"] as? String } == [
            "Weekly team sync", "Product review: Contoso Mark 8", "Retail conference", "Store walk-through", "Coffee with Patti",
            "1:1 with Alex", "Quarterly planning",
        ])
        // Windows overlapping an event's edge include it; offsets are honoured.
        let morning = fixture.get("/v1.0/me/calendarView?startDateTime=2025-01-06T09:15:00-08:00&endDateTime=2025-01-06T10:00:00-08:00", token: fixture.token())
        #expect(morning.values.compactMap { $0["subject"] as? String } == ["Weekly team sync"])
    }

    @Test func calendarViewFollowsTheClock() {
        let thisWeek = Set(fixture.get("/v1.0/me/calendarView?\(week)", token: fixture.token()).values.compactMap { $0["id"] as? String })
        #expect(thisWeek == Set(fixture.get("/v1.0/me/calendarView?\(week)", token: fixture.token()).values.compactMap { $0["id"] as? String }))
        fixture.clock.advance(by: 7 * 86400)
        let nextWeek = "startDateTime=2025-01-13T00:00:00&endDateTime=2025-01-20T00:00:00"
        let moved = fixture.get("/v1.0/me/calendarView?\(nextWeek)&$select=subject", token: fixture.token())
        #expect(moved.values.count == 7)
    }

    @Test func unescapedPlusInAnOffsetIsUnderstood() {
        // `+01:00` written raw in a URL reaches us as a space.
        let response = fixture.get("/v1.0/me/calendarView?startDateTime=2025-01-06T18:00:00+01:00&endDateTime=2025-01-06T18:20:00+01:00", token: fixture.token())
        #expect(response.values.compactMap { $0["subject"] as? String } == ["Weekly team sync"])
    }

    @Test func eventTimesFollowTheMailboxZone() throws {
        let sync = try #require(fixture.get("/v1.0/me/events?$skip=2&$top=1&$select=originalStartTimeZone,start", token: fixture.token()).values.first)
        #expect(sync["originalStartTimeZone"] as? String == "Pacific Standard Time")
        let megan = fixture.token(user: Demo.megan, tenant: Tenant.consumersTenantID, scopes: "Calendars.Read")
        let dentist = try #require(fixture.get("/v1.0/me/events?$top=1", token: megan).values.first)
        #expect(dentist["start"] as? [String: String] == ["dateTime": "2025-01-08T07:00:00.0000000", "timeZone": "UTC"])
    }

    @Test func calendarViewNeedsItsWindow() {
        let response = fixture.get("/v1.0/me/calendarView?startDateTime=2025-01-06T00:00:00Z", token: fixture.token())
        #expect(response.status == .badRequest)
        #expect(response.bodyText == expectedErrorBody(
            code: "ErrorInvalidParameter",
            message: "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.", response: response
        ))
        let bad = fixture.get("/v1.0/me/calendarView?startDateTime=monday&endDateTime=2025-01-13", token: fixture.token())
        #expect(bad.errorMessage == "The value 'monday' of parameter 'StartDateTime' is invalid.")
        // An end before the start is refused, not answered 200 with an empty list.
        let reversed = fixture.get("/v1.0/me/calendarView?startDateTime=2025-01-13T00:00:00Z&endDateTime=2025-01-06T00:00:00Z", token: fixture.token())
        #expect(reversed.status == .badRequest)
        #expect(reversed.json["error"] != nil)
        #expect(reversed.bodyText.contains("ErrorInvalidParameter") && reversed.bodyText.contains("EndDateTime"))
        // The same instant in two offsets is an empty window, not a reversed one.
        let empty = fixture.get("/v1.0/me/calendarView?startDateTime=2025-01-06T10:00:00%2B01:00&endDateTime=2025-01-06T09:00:00Z", token: fixture.token())
        #expect(empty.status == .ok, "\(empty.bodyText)")
    }

    /// `?api-version=garbage` is not ignored: Graph refuses the parameter.
    @Test func apiVersionIsRefusedInGraphsErrorJSON() {
        for target in ["/v1.0/me?api-version=garbage", "/beta/me/calendarView?\(week)&API-VERSION=1.6"] {
            let response = fixture.get(target, token: fixture.token())
            #expect(response.status == .badRequest, "\(target)")
            #expect(response.bodyText == expectedErrorBody(code: "BadRequest", message: "Query parameter api-version not allowed", response: response))
        }
    }

    @Test func preferredTimeZoneConvertsTimes() throws {
        let response = fixture.get(
            "/v1.0/me/calendarView?\(week)&$top=1", token: fixture.token(), headers: [("Prefer", #"outlook.timezone="Pacific Standard Time""#)]
        )
        let first = try #require(response.values.first)
        #expect(first["start"] as? [String: String] == ["dateTime": "2025-01-06T09:00:00.0000000", "timeZone": "Pacific Standard Time"])
        #expect(response.headers["Preference-Applied"] == #"outlook.timezone="Pacific Standard Time""#)
        let paris = fixture.get("/v1.0/me/events?$skip=2&$top=1", token: fixture.token(), headers: [("Prefer", #"outlook.timezone="Europe/Paris""#)])
        #expect(paris.values.first?["start"] as? [String: String] == ["dateTime": "2025-01-06T18:00:00.0000000", "timeZone": "Europe/Paris"])
        let unknown = fixture.get("/v1.0/me/events?$skip=2&$top=1", token: fixture.token(), headers: [("Prefer", #"outlook.timezone="Mars/Olympus""#)])
        #expect((unknown.values.first?["start"] as? [String: String])?["timeZone"] == "UTC")
        #expect(unknown.headers["Preference-Applied"] == nil)
    }

    @Test func calendarPermissions() {
        let denied = fixture.get("/v1.0/me/events", token: fixture.token(scopes: "User.Read"))
        #expect(denied.status == .forbidden)
        #expect(denied.bodyText == expectedErrorBody(code: "ErrorAccessDenied", message: "Access is denied. Check credentials and try again.", response: denied))
        #expect(fixture.get("/v1.0/me/calendar/events", token: fixture.token(scopes: "Calendars.ReadWrite")).status == .ok)
        #expect(fixture.get("/v1.0/users/\(Demo.alex)/events", token: fixture.token(scopes: "Calendars.Read User.Read.All")).status == .forbidden)
        let daemon = fixture.appToken(roles: ["Calendars.Read"])
        let alexWeek = fixture.get("/v1.0/users/alex.wilber@contoso.onmicrosoft.com/calendarView?\(week)&$select=subject", token: daemon)
        #expect(alexWeek.values.compactMap { $0["subject"] as? String } == ["Weekly team sync", "Campaign brainstorm", "Social media review", "1:1 with Adele"])
        #expect(fixture.get("/v1.0/users/\(Demo.alex)/events", token: fixture.appToken(roles: ["User.Read.All"])).errorCode == "ErrorAccessDenied")
        #expect(fixture.get("/v1.0/me/events", token: daemon).errorMessage == "/me request is only valid with delegated authentication flow.")
        let missing = fixture.get("/v1.0/users/ghost@contoso.onmicrosoft.com/events", token: daemon)
        #expect(missing.status == .notFound)
        #expect(missing.errorCode == "ErrorInvalidUser")
    }

    @Test func alexAttendsAdelesMeeting() throws {
        let sync = try #require(fixture.get("/v1.0/me/events?$top=1", token: fixture.token(user: Demo.alex)).values.first)
        #expect(sync["isOrganizer"] as? Bool == false)
        #expect((sync["responseStatus"] as? [String: Any])?["response"] as? String == "accepted")
        #expect(((sync["organizer"] as? [String: Any])?["emailAddress"] as? [String: String])?["name"] == "Adele Vance")
    }

    @Test func personalAccountCalendar() {
        let token = fixture.token(user: Demo.megan, tenant: Tenant.consumersTenantID, scopes: "Calendars.Read")
        let response = fixture.get("/v1.0/me/calendarView?\(week)", token: token)
        #expect(response.values.compactMap { $0["subject"] as? String } == ["Dentist", "Dinner with friends"])
        #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('66f33332eca7ea81')/calendarView")
        #expect((response.values.first?["webLink"] as? String)?.hasPrefix("https://outlook.live.com/") == true)
    }

    @Test func defaultCalendar() {
        let calendar = fixture.get("/v1.0/me/calendar", token: fixture.token())
        #expect(calendar.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/calendar/$entity")
        #expect(calendar.json["isDefaultCalendar"] as? Bool == true)
        #expect((calendar.json["owner"] as? [String: String])?["address"] == "adele.vance@contoso.onmicrosoft.com")
        let list = fixture.get("/v1.0/me/calendars", token: fixture.token())
        #expect(list.values.count == 1)
        #expect(list.values.first?["id"] as? String == calendar.json["id"] as? String)
        #expect(fixture.get("/v1.0/me/calendars", token: fixture.token(scopes: "User.Read")).status == .forbidden)
    }

    /// The id `/calendars` lists names the calendar, its events and its calendar view (the O365 library's paths).
    @Test func aCalendarByTheIdTheListGives() throws {
        let token = fixture.token()
        let id = try #require(fixture.get("/v1.0/me/calendars", token: token).values.first?["id"] as? String)
        let calendar = fixture.get("/v1.0/me/calendars/\(id)", token: token)
        #expect(calendar.status == .ok && calendar.json["id"] as? String == id)
        let events = fixture.get("/v1.0/me/calendars/\(id)/events?$top=50", token: token)
        #expect(events.status == .ok && events.values.count == fixture.get("/v1.0/me/events?$top=50", token: token).values.count)
        #expect(events.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/calendars('\(id)')/events")
        let view = fixture.get("/v1.0/me/calendars/\(id)/calendarView?startDateTime=2025-01-06T00:00:00Z&endDateTime=2025-01-11T00:00:00Z", token: token)
        #expect(view.status == .ok && !view.values.isEmpty)
        #expect(fixture.get("/v1.0/me/calendars/AAMkAGnotmine/events", token: token).status == .notFound)
        let keyed = fixture.get("/v1.0/me/events('\(try #require(events.values.first?["id"] as? String))')", token: token)
        #expect(keyed.status == .ok)
    }

    @Test func filterAndCount() {
        let token = fixture.token()
        let fromMonday = fixture.get("/v1.0/me/events?$filter=start/dateTime%20ge%20'2025-01-06T00:00:00'%20and%20end/dateTime%20le%202025-01-11T00:00:00Z&$select=subject&$count=true", token: token)
        #expect(fromMonday.status == .ok, "\(fromMonday.bodyText)")
        #expect(fromMonday.json["@odata.count"] as? Int == 7)
        #expect(fromMonday.values.count == 7)
        let subject = fixture.get("/v1.0/me/events?$filter=startswith(subject,'store')&$select=subject", token: token)
        #expect(subject.values.compactMap { $0["subject"] as? String } == ["Store walk-through", "Store visit: Bellevue"])
        let allDay = fixture.get("/v1.0/me/events?$filter=isAllDay%20eq%20true%20or%20importance%20eq%20'high'&$select=subject", token: token)
        #expect(allDay.values.compactMap { $0["subject"] as? String } == ["Retail conference", "Quarterly planning"])
        let bad = fixture.get("/v1.0/me/events?$filter=start/dateTime%20ge", token: token)
        #expect(bad.status == .badRequest)
        #expect(bad.errorCode == "ErrorInvalidUrlQueryFilter")
        #expect(fixture.get("/v1.0/me/events?$filter=colour%20eq%20'red'", token: token).errorMessage
            == "Could not find a property named 'colour' on type 'microsoft.graph.event'.")
    }
}
