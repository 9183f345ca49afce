import FoundationGaps
package import IdentityPlatform

/// What Graph holds beyond the directory: per user, a profile photo and calendar events.
/// Lives in the config file under `graph` (schema: `GraphDataset.jsonSchema`); `embeddedDefault` serves the
/// demo users with no configuration.
package struct GraphDataset: Sendable, Codable, Equatable {
    /// Keyed by a user's UPN (or any sign-in name) or object id, compared ignoring case.
    package var users: [String: GraphUserContent]

    package init(users: [String: GraphUserContent] = [:]) { self.users = users }

    /// The content for `user`, by object id first, then by sign-in name.
    package func content(for user: DirectoryUser) -> GraphUserContent? {
        if let byID = users.first(where: { $0.key.lowercased() == user.id }) { return byID.value }
        return users.first { user.answers(to: $0.key) }?.value
    }

    /// A copy whose `photo.path` entries are replaced by the files' bytes (base64), so that serving never reads
    /// the file system. Relative paths are resolved against `directory` (the config file's folder).
    package func inliningPhotoFiles(relativeTo directory: String) throws -> GraphDataset {
        var copy = self
        for (key, content) in users {
            guard let path = content.photo?.path else { continue }
            let full = path.hasPrefix("/") ? path : (directory).appendingPathComponent(path)
            let data = try Data(contentsOf: URL(fileURLWithPath: full))
            guard ImageInfo(Array(data)) != nil else { throw PhotoFileError(path: full) }
            copy.users[key]?.photo = GraphPhotoSource(base64: data.base64EncodedString())
        }
        return copy
    }

    /// Problems a config loader should report (unreadable event times, unknown zones, photos that are not
    /// images), each as a JSON pointer into the `graph` section and a message.
    package func validationIssues() -> [(pointer: String, message: String)] {
        var issues: [(pointer: String, message: String)] = []
        for (key, content) in users.sorted(by: { $0.key < $1.key }) {
            let base = "/users/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            if let photo = content.photo {
                let sources = [photo.path != nil, photo.base64 != nil, photo.generated != nil].filter { $0 }.count
                if sources != 1 { issues.append((base + "/photo", "give exactly one of path, base64, generated")) }
                if let base64 = photo.base64, Data(base64Encoded: base64, options: .ignoreUnknownCharacters).flatMap({ ImageInfo(Array($0)) }) == nil {
                    issues.append((base + "/photo/base64", "not a PNG, JPEG or GIF image"))
                }
            }
            if let zone = content.timeZone, GraphTimeZone(named: zone) == nil {
                issues.append((base + "/timeZone", "unknown time zone '\(zone)'"))
            }
            for (index, event) in content.events.enumerated() {
                let path = "\(base)/events/\(index)"
                if EventTime(parsing: event.start) == nil { issues.append(("\(path)/start", "unreadable time '\(event.start)'")) }
                if let end = event.end, EventTime(parsing: end) == nil { issues.append(("\(path)/end", "unreadable time '\(end)'")) }
                if let zone = event.timeZone, GraphTimeZone(named: zone) == nil { issues.append(("\(path)/timeZone", "unknown time zone '\(zone)'")) }
            }
        }
        return issues
    }

    /// `validationIssues()` as text: `graph/users/…/start: message`.
    package func validationProblems() -> [String] {
        validationIssues().map { "graph\($0.pointer): \($0.message)" }
    }
}

/// A configured photo file that is not a PNG, JPEG or GIF image.
package struct PhotoFileError: Error, CustomStringConvertible {
    package var path: String
    package var description: String { "\(path) is not a PNG, JPEG or GIF image" }
}

/// One user's Graph content.
package struct GraphUserContent: Sendable, Codable, Equatable {
    package var photo: GraphPhotoSource?
    /// The mailbox's time zone (`mailboxSettings.timeZone`, default UTC), in which the user's event times
    /// without a zone of their own are read.
    package var timeZone: String?
    package var events: [GraphEventSpec]

    package init(photo: GraphPhotoSource? = nil, timeZone: String? = nil, events: [GraphEventSpec] = []) {
        self.photo = photo
        self.timeZone = timeZone
        self.events = events
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photo = try c.decodeIfPresent(GraphPhotoSource.self, forKey: .photo)
        timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
        events = try c.decodeIfPresent([GraphEventSpec].self, forKey: .events) ?? []
    }

    /// The mailbox zone, UTC when unset or unknown.
    package var mailboxZone: GraphTimeZone { timeZone.flatMap(GraphTimeZone.init(named:)) ?? .utc }
}

/// Where a profile photo comes from: a file, inline base64 bytes, or an initials avatar drawn here.
package struct GraphPhotoSource: Sendable, Codable, Equatable {
    package var path: String?
    package var base64: String?
    package var generated: GeneratedPhoto?

    package init(path: String? = nil, base64: String? = nil, generated: GeneratedPhoto? = nil) {
        self.path = path
        self.base64 = base64
        self.generated = generated
    }

    package struct GeneratedPhoto: Sendable, Codable, Equatable {
        /// `#RRGGBB`.
        package var background: String
        /// Pixels per side (default 96).
        package var size: Int?
        /// Letters drawn (default: the user's given-name and surname initials).
        package var initials: String?

        package init(background: String, size: Int? = nil, initials: String? = nil) {
            self.background = background
            self.size = size
            self.initials = initials
        }
    }
}

/// A calendar event as the config describes it. Times are absolute (`2025-03-03T09:00:00Z`, an offset, or no
/// offset = the event's `timeZone`) or relative to the platform clock's current week, so demo calendars are
/// never empty: `mon 09:00` (this ISO week), `next tue 14:30`, `last fri 10:00`, `today 15:00`,
/// `tomorrow 09:00`, `yesterday 16:00`; all-day events give a day only (`wed`, `2025-03-05`).
package struct GraphEventSpec: Sendable, Codable, Equatable {
    /// Fixed id; default: derived from the user, the subject and the start.
    package var id: String?
    package var subject: String
    package var body: String?
    /// `text` (default) or `html`.
    package var bodyContentType: String?
    package var start: String
    /// Default: `durationMinutes` after `start`.
    package var end: String?
    package var durationMinutes: Int?
    package var isAllDay: Bool?
    /// Zone of relative and offset-less times, and the event's `originalStartTimeZone` (default: the
    /// mailbox's `timeZone`, else UTC).
    package var timeZone: String?
    package var location: String?
    /// Default: the user themselves.
    package var organizer: Address?
    package var attendees: [Attendee]?
    package var showAs: String?
    package var importance: String?
    package var categories: [String]?
    package var isOnlineMeeting: Bool?

    package init(
        id: String? = nil, subject: String, body: String? = nil, bodyContentType: String? = nil, start: String, end: String? = nil,
        durationMinutes: Int? = nil, isAllDay: Bool? = nil, timeZone: String? = nil, location: String? = nil,
        organizer: Address? = nil, attendees: [Attendee]? = nil, showAs: String? = nil, importance: String? = nil,
        categories: [String]? = nil, isOnlineMeeting: Bool? = nil
    ) {
        self.id = id
        self.subject = subject
        self.body = body
        self.bodyContentType = bodyContentType
        self.start = start
        self.end = end
        self.durationMinutes = durationMinutes
        self.isAllDay = isAllDay
        self.timeZone = timeZone
        self.location = location
        self.organizer = organizer
        self.attendees = attendees
        self.showAs = showAs
        self.importance = importance
        self.categories = categories
        self.isOnlineMeeting = isOnlineMeeting
    }

    package struct Address: Sendable, Codable, Equatable {
        package var name: String?
        package var address: String
        package init(name: String? = nil, address: String) {
            self.name = name
            self.address = address
        }
    }

    package struct Attendee: Sendable, Codable, Equatable {
        package var name: String?
        package var address: String
        /// `required` (default), `optional` or `resource`.
        package var type: String?
        /// `none` (default), `accepted`, `tentativelyAccepted`, `declined`.
        package var response: String?
        package init(name: String? = nil, address: String, type: String? = nil, response: String? = nil) {
            self.name = name
            self.address = address
            self.type = type
            self.response = response
        }
    }
}
