import Foundation
import IdentityPlatform
import LocatedJSON
import Testing
import EntraHTTP
@testable import Graph

@Suite("Graph dataset, event times and dates")
struct DatasetTests {
    @Test func civilTimeRoundTrips() {
        let time = CivilTime(Demo.now)
        #expect(time == CivilTime(year: 2025, month: 1, day: 8, hour: 12))
        #expect(time.isoWeekday == 3)
        #expect(time.httpDate == "Wed, 08 Jan 2025 12:00:00 GMT")
        #expect(time.instant() == Demo.now)
        #expect(CivilTime(Date(timeIntervalSince1970: 951_782_400)).isoSeconds == "2000-02-29T00:00:00")
        #expect(CivilTime(Date(timeIntervalSince1970: -1)).isoSeconds == "1969-12-31T23:59:59")
        #expect(CivilTime(Date(timeIntervalSince1970: 0)).isoWeekday == 4)
    }

    @Test func isoParsing() throws {
        let zulu = try #require(CivilTime.parseISO("2025-01-06T09:00:00Z"))
        #expect(zulu.offset == 0 && zulu.time.hour == 9)
        let offset = try #require(CivilTime.parseISO("2025-01-06T09:00:00.1234567-08:00"))
        #expect(offset.offset == -8 * 3600)
        #expect(offset.time.instant(offset: offset.offset!) == CivilTime(year: 2025, month: 1, day: 6, hour: 17).instant())
        #expect(CivilTime.parseISO("2025-01-06")?.offset == nil)
        #expect(CivilTime.parseISO("2025-01-06T09:00")?.time.minute == 0)
        for bad in ["2025-02-30", "2025-13-01", "monday", "2025-01-06T25:00", "2025-01-06T09:00:00Zjunk", ""] {
            #expect(CivilTime.parseISO(bad) == nil, "\(bad)")
        }
    }

    @Test func relativeEventTimes() {
        let utc = GraphTimeZone.utc
        #expect(EventTime(parsing: "mon 09:00")?.civil(now: Demo.now, zone: utc) == CivilTime(year: 2025, month: 1, day: 6, hour: 9))
        #expect(EventTime(parsing: "next Tue 14:30")?.civil(now: Demo.now, zone: utc) == CivilTime(year: 2025, month: 1, day: 14, hour: 14, minute: 30))
        #expect(EventTime(parsing: "last sunday 08:00")?.civil(now: Demo.now, zone: utc) == CivilTime(year: 2025, month: 1, day: 5, hour: 8))
        #expect(EventTime(parsing: "tomorrow 07:05")?.civil(now: Demo.now, zone: utc) == CivilTime(year: 2025, month: 1, day: 9, hour: 7, minute: 5))
        #expect(EventTime(parsing: "wed")?.hasTimeOfDay == false)
        for bad in ["someday 09:00", "mon 9", "mon 25:00", "next today 10:00", "mon 09:00 extra"] {
            #expect(EventTime(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func timeZonesResolveWindowsAndIANANames() throws {
        let pacific = try #require(GraphTimeZone(named: "Pacific Standard Time"))
        #expect(pacific.offset(at: Demo.now) == -8 * 3600)
        #expect(pacific.offset(at: Date(timeIntervalSince1970: 1_751_371_200)) == -7 * 3600, "July is daylight time")
        #expect(GraphTimeZone(named: "Europe/Paris")?.offset(at: Demo.now) == 3600)
        #expect(GraphTimeZone(named: "Nowhere/Special") == nil)
        let zoned = pacific.instant(of: CivilTime(year: 2025, month: 1, day: 6, hour: 1))
        #expect(zoned == CivilTime(year: 2025, month: 1, day: 6, hour: 9).instant())
    }

    @Test func datasetDecodesFromConfigJSON() throws {
        let json = """
        {"users": {
          "alex.wilber@contoso.onmicrosoft.com": {
            "photo": {"generated": {"background": "#038387", "size": 48}},
            "events": [
              {"subject": "Standup", "start": "mon 09:15", "durationMinutes": 15, "timeZone": "Pacific Standard Time",
               "attendees": [{"address": "adele.vance@contoso.onmicrosoft.com", "type": "optional"}]},
              {"subject": "Launch", "start": "2025-01-07T18:00:00Z", "end": "2025-01-07T19:00:00Z", "bodyContentType": "html", "body": "<b>Go</b>"}
            ]
          },
          "\(Demo.adele)": {}
        }}
        """
        let dataset = try JSONDecoder().decode(GraphDataset.self, from: Data(json.utf8))
        #expect(dataset.validationProblems().isEmpty)
        let alex = try #require(Directory.embeddedDefault.user(id: Demo.alex))
        #expect(dataset.content(for: alex)?.events.count == 2)
        #expect(dataset.content(for: Directory.embeddedDefault.user(id: Demo.adele)!)?.events == [])
        let fixture = GraphFixture(dataset: dataset)
        let token = fixture.token(user: Demo.alex)
        let events = fixture.get("/v1.0/me/events", token: token).values
        #expect(events.compactMap { $0["subject"] as? String } == ["Standup", "Launch"])
        #expect(events.first?["start"] as? [String: String] == ["dateTime": "2025-01-06T17:15:00.0000000", "timeZone": "UTC"])
        #expect(events.first?["originalStartTimeZone"] as? String == "Pacific Standard Time")
        #expect(fixture.get("/v1.0/me/photo", token: token).json["width"] as? Int == 48)
        #expect(fixture.get("/v1.0/me/photo/$value", token: fixture.token()).status == .notFound, "Adele has no photo in this dataset")
    }

    @Test func validationReportsProblems() {
        let dataset = GraphDataset(users: [
            "x@contoso.com": GraphUserContent(
                photo: GraphPhotoSource(base64: "bm90IGFuIGltYWdl"),
                events: [GraphEventSpec(subject: "A", start: "someday", timeZone: "Mars/Olympus"), GraphEventSpec(subject: "B", start: "mon 09:00", end: "later")]
            ),
        ])
        #expect(dataset.validationProblems() == [
            "graph/users/x@contoso.com/photo/base64: not a PNG, JPEG or GIF image",
            "graph/users/x@contoso.com/events/0/start: unreadable time 'someday'",
            "graph/users/x@contoso.com/events/0/timeZone: unknown time zone 'Mars/Olympus'",
            "graph/users/x@contoso.com/events/1/end: unreadable time 'later'",
        ])
    }

    @Test func photoFilesAreInlined() throws {
        let directory = NSTemporaryDirectory() + "graph-dataset-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let png = InitialsAvatar.png(initials: "AW", background: "#038387", size: 32)
        try Data(png).write(to: URL(fileURLWithPath: directory + "/alex.png"))
        let dataset = GraphDataset(users: ["alex.wilber@contoso.onmicrosoft.com": GraphUserContent(photo: GraphPhotoSource(path: "alex.png"))])
        let inlined = try dataset.inliningPhotoFiles(relativeTo: directory)
        #expect(inlined.users.values.first?.photo == GraphPhotoSource(base64: Data(png).base64EncodedString()))
        #expect(throws: (any Error).self) { try GraphDataset(users: ["a": GraphUserContent(photo: GraphPhotoSource(path: "missing.png"))]).inliningPhotoFiles(relativeTo: directory) }
    }

    @Test func schemaIsJSON() throws {
        let schema = try JSONSerialization.jsonObject(with: Data(GraphDataset.jsonSchema.utf8)) as? [String: Any]
        #expect(schema?["type"] as? String == "object")
        let embedded = try JSONEncoder().encode(GraphDataset.embeddedDefault)
        let decoded = try JSONDecoder().decode(GraphDataset.self, from: embedded)
        #expect(decoded == .embeddedDefault)
        #expect(GraphDataset.embeddedDefault.validationProblems().isEmpty)
    }
}

@Suite("Loading the config file's graph section")
struct DatasetLoaderTests {
    func section(_ text: String) throws -> JSONValue {
        let document = try LocatedJSON.parse(Array(text.utf8), file: "fakeentra.json")
        return try #require(document["graph"])
    }

    @Test func loadsAValidSection() throws {
        let text = ##"{"graph": {"users": {"alex.wilber@contoso.onmicrosoft.com": {"timeZone": "Eastern Standard Time", "photo": {"generated": {"background": "#038387"}}, "events": [{"subject": "Standup", "start": "mon 09:15", "durationMinutes": 15}]}}}}"##
        let dataset = try GraphDataset.load(section: section(text), file: "fakeentra.json", baseDirectory: "/tmp")
        #expect(dataset.users.count == 1)
        #expect(dataset.users.values.first?.events.first?.subject == "Standup")
        #expect(try GraphDataset.load(section: nil, file: "x", baseDirectory: "/tmp") == .embeddedDefault)
    }

    @Test func schemaProblemsPointIntoTheFile() throws {
        let text = """
        {"graph": {"users": {"a@contoso.com": {
          "photo": {"generated": {"background": "purple"}},
          "events": [{"subject": "No start"}]
        }}}}
        """
        do {
            _ = try GraphDataset.load(section: section(text), file: "fakeentra.json", baseDirectory: "/tmp")
            Issue.record("accepted an invalid section")
        } catch let error as JSONProblems {
            let paths = Set(error.problems.map(\.path))
            #expect(paths.contains("/graph/users/a@contoso.com/photo/generated/background"))
            #expect(paths.contains("/graph/users/a@contoso.com/events/0"))
            #expect(error.problems.allSatisfy { $0.location.line >= 2 })
        }
    }

    @Test func semanticProblemsAndUnreadablePhotosPointIntoTheFile() throws {
        let text = """
        {"graph": {"users": {
          "a@contoso.com": {"events": [{"subject": "x", "start": "someday 09:00"}]},
          "b@contoso.com": {"photo": {"path": "nowhere/b.png"}}
        }}}
        """
        do {
            _ = try GraphDataset.load(section: section(text), file: "fakeentra.json", baseDirectory: NSTemporaryDirectory())
            Issue.record("accepted an invalid section")
        } catch let error as JSONProblems {
            #expect(error.problems.map(\.path) == ["/graph/users/a@contoso.com/events/0/start", "/graph/users/b@contoso.com/photo/path"])
            #expect(error.problems.map(\.location.line) == [2, 3])
            #expect(error.problems.first?.message == "unreadable time 'someday 09:00'")
        }
    }

    @Test func schemaAcceptsTheEmbeddedDefault() throws {
        let encoded = try JSONEncoder().encode(GraphDataset.embeddedDefault)
        let tree = try LocatedJSON.parse(Array(encoded), file: "default.json")
        #expect(GraphDataset.schema.validate(tree, file: "default.json").isEmpty)
    }
}

@Suite("Bad input never crashes")
struct RobustnessTests {
    @Test func tinyAvatarsClipTheirLetters() {
        for size in [8, 9, 10, 13] {
            #expect(ImageInfo(InitialsAvatar.png(initials: "WM", background: "#000000", size: size))?.width == size)
        }
    }

    @Test func extremePagingValues() {
        let fixture = GraphFixture()
        let token = fixture.token(scopes: "User.Read.All Calendars.Read")
        let max = String(Int.max)
        #expect(fixture.get("/v1.0/me/events?$skip=\(max)&$top=\(max)", token: token).values.isEmpty)
        #expect(fixture.get("/v1.0/me/events?$skip=1&$top=\(max)", token: token).values.count == 11)
        #expect(fixture.get("/v1.0/me/events?$top=99999999999999999999999", token: token).status == .badRequest)
        #expect(fixture.get("/v1.0/users?$skiptoken=\(SkipToken.make(Int.max))", token: token).values.isEmpty)
        #expect(fixture.get("/v1.0/users?$skiptoken=garbage", token: token).errorCode == "Directory_ExpiredPageToken")
    }

    @Test func absurdEventDurationsAreCut() {
        let dataset = GraphDataset(users: ["adele.vance@contoso.onmicrosoft.com": GraphUserContent(events: [
            GraphEventSpec(subject: "Forever", start: "mon 09:00", durationMinutes: Int.max),
            GraphEventSpec(subject: "All days", start: "mon", durationMinutes: Int.max, isAllDay: true),
        ])])
        let fixture = GraphFixture(dataset: dataset)
        let events = fixture.get("/v1.0/me/events", token: fixture.token()).values
        #expect(events.count == 2)
        #expect((events.first?["end"] as? [String: String])?["dateTime"]?.hasPrefix("2035-") == true)
    }

    @Test func garbageRequestsGetGraphErrors() {
        let fixture = GraphFixture()
        let token = fixture.token()
        for target in ["/v1.0/me?$select=", "/v1.0/me?$select=,,", "/v1.0/me/events?$orderby=", "/v1.0/me/calendarView?startDateTime=&endDateTime=",
                       "/v1.0/users/%FF%FE", "/v1.0/me/events?$filter=''", "/v1.0/me/photos/%00/$value", "/v1.0/me/events?$top=-1"] {
            let response = fixture.get(target, token: token)
            #expect(response.status.code < 500, "\(target)")
            #expect(response.status == .ok || response.errorCode != nil, "\(target): \(response.bodyText)")
        }
    }
}
