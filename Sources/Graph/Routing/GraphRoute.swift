package import ExchangeKernel
package import EntraHTTP
import FoundationGaps

/// Whose data a path names: the signed-in user (`/me`) or a user by object id or UPN (`/users/{id}`).
package enum GraphSubject: Sendable, Equatable {
    case me
    case user(String)
}

/// How a directory relationship (a group's `members`, a user's `memberOf`) is read: its objects, cast to one
/// type (`microsoft.graph.user`, `microsoft.graph.group`), or their number (`/$count`).
package struct DirectoryListing: Sendable, Equatable {
    package var cast: String?
    package var countOnly: Bool

    package init(cast: String? = nil, countOnly: Bool = false) {
        self.cast = cast
        self.countOnly = countOnly
    }

    /// The segments after the relationship's name: none, `$count`, a cast, or a cast then `$count`.
    static func parse(_ tail: [String]) -> DirectoryListing? {
        func isCast(_ segment: String) -> Bool { segment.lowercased().hasPrefix("microsoft.graph.") }
        switch tail.count {
        case 0: return DirectoryListing()
        case 1 where tail[0].lowercased() == "$count": return DirectoryListing(countOnly: true)
        case 1 where isCast(tail[0]): return DirectoryListing(cast: tail[0].lowercased())
        case 2 where isCast(tail[0]) && tail[1].lowercased() == "$count": return DirectoryListing(cast: tail[0].lowercased(), countOnly: true)
        default: return nil
        }
    }
}

/// The Graph resource a request path names, once the version segment is read.
package enum GraphResourcePath: Sendable, Equatable {
    /// `/v1.0` itself.
    case serviceRoot
    case users
    /// `/users/$count`: the number of users, as text.
    case userCount
    case user(GraphSubject)
    /// `/photo` (size nil) or `/photos/{48x48}`.
    case photo(GraphSubject, size: String?)
    case photoValue(GraphSubject, size: String?)
    case photos(GraphSubject)
    case calendar(GraphSubject)
    case calendars(GraphSubject)
    /// `/calendars/{id}`: one calendar by the id `/calendars` lists.
    case calendarByID(GraphSubject, id: String)
    case events(GraphSubject)
    case event(GraphSubject, id: String)
    case calendarView(GraphSubject)
    /// `/calendars/{id}/events` and `/calendars/{id}/calendarView`: the items of one calendar.
    case calendarItems(GraphSubject, calendarID: String, view: Bool)
    case mailboxSettings(GraphSubject)
    /// `/groups`, `/groups/{id}`, `/groups/{id}/members` and `/transitiveMembers` (through nested groups).
    case groups
    case group(id: String)
    case groupMembers(id: String, transitive: Bool, DirectoryListing)
    /// `/groups/{id}/owners`.
    case groupOwners(id: String, DirectoryListing)
    /// `/memberOf` and `/transitiveMemberOf` of a user.
    case memberOf(GraphSubject, transitive: Bool, DirectoryListing)
    /// `/ownedObjects` of a user: the groups they own.
    case ownedObjects(GraphSubject, DirectoryListing)
    /// `POST /getMemberObjects` of a user: the ids a token's group overage points at.
    case memberObjects(GraphSubject)
    /// `/servicePrincipals` (listed with `$filter`, as `az ad sp` asks).
    case servicePrincipals
    /// `/applications`: the tenant's app registrations; `/applications/$count`.
    case applications(countOnly: Bool)
    /// `/applications/{object id}` or `/applications(appId='{app id}')`.
    case application(ApplicationKey)
    /// A segment Graph does not know (400 `Resource not found for the segment '…'`).
    case unknownSegment(String)
}

/// How a request names one app registration.
package enum ApplicationKey: Sendable, Equatable {
    case objectID(String)
    case appID(String)
}

/// Which part of Graph a request is for; nil from `parse` when the request is not Graph's.
package enum GraphRoute: Sendable, Equatable {
    /// The OpenID Connect UserInfo endpoint Graph hosts (`/oidc/userinfo`).
    case userInfo
    /// `/{version}/…` with version `v1.0` or `beta`.
    case resource(version: String, path: GraphResourcePath)
    /// A version segment Graph does not serve (only under Graph's own host name).
    case invalidVersion(String)

    package static let versions = ["v1.0", "beta"]

    /// A stable name for scenario rules and logs: `me`, `user`, `users`, `photo`, `photoValue`, `photos`,
    /// `events`, `event`, `calendarView`, `calendar`, `calendars`, `mailboxSettings`, `userInfo`, `serviceRoot`,
    /// `unknown`.
    package var endpointName: String {
        switch self {
        case .userInfo: return "userInfo"
        case .invalidVersion: return "unknown"
        case .resource(_, let path):
            switch path {
            case .serviceRoot: return "serviceRoot"
            case .users: return "users"
            case .userCount: return "userCount"
            case .user(.me): return "me"
            case .user: return "user"
            case .photo: return "photo"
            case .photoValue: return "photoValue"
            case .photos: return "photos"
            case .events, .calendarItems(_, _, view: false): return "events"
            case .event: return "event"
            case .calendarView, .calendarItems(_, _, view: true): return "calendarView"
            case .calendar, .calendarByID: return "calendar"
            case .calendars: return "calendars"
            case .mailboxSettings: return "mailboxSettings"
            case .groups: return "groups"
            case .group: return "group"
            case .groupMembers(_, let transitive, _): return transitive ? "groupTransitiveMembers" : "groupMembers"
            case .groupOwners: return "groupOwners"
            case .ownedObjects: return "ownedObjects"
            case .memberOf(_, let transitive, _): return transitive ? "transitiveMemberOf" : "memberOf"
            case .memberObjects: return "getMemberObjects"
            case .servicePrincipals: return "servicePrincipals"
            case .applications(let countOnly): return countOnly ? "applicationCount" : "applications"
            case .application: return "application"
            case .unknownSegment: return "unknown"
            }
        }
    }

    /// `graphHost` is true when the request came to Graph's own host name (hosts-file override): then every
    /// path is Graph's. On FakeEntra's host only `/v1.0/…`, `/beta/…` and `/oidc/userinfo` are.
    package static func parse(_ request: HTTPRequest, graphHost: Bool) -> GraphRoute? {
        let segments = request.pathSegments
        if segments.count == 2, segments[0].equalsIgnoringASCIICase("oidc"), segments[1].equalsIgnoringASCIICase("userinfo") { return .userInfo }
        // The v1 document's `/{tenant}/openid/userinfo` is the same UserInfo endpoint on the sign-in host.
        if !graphHost, segments.count == 3, segments[1].equalsIgnoringASCIICase("openid"), segments[2].equalsIgnoringASCIICase("userinfo") { return .userInfo }
        guard let first = segments.first else { return graphHost ? .invalidVersion("") : nil }
        guard let version = versions.first(where: { $0.equalsIgnoringCase(first) }) else {
            return graphHost ? .invalidVersion(first) : nil
        }
        return .resource(version: version, path: parsePath(Array(segments.dropFirst())))
    }

    /// `name('key')` → key.
    static func keyInParentheses(_ segment: String, of name: String) -> String? {
        let prefix = name + "('"
        guard segment.count > prefix.count + 2, segment.lowercased().hasPrefix(prefix), segment.hasSuffix("')") else { return nil }
        return String(segment.dropFirst(prefix.count).dropLast(2))
    }

    static func parsePath(_ segments: [String]) -> GraphResourcePath {
        guard let first = segments.first else { return .serviceRoot }
        let subject: GraphSubject
        let rest: [String]
        switch first.lowercased() {
        case "me":
            subject = .me
            rest = Array(segments.dropFirst())
        case "users":
            guard segments.count > 1 else { return .users }
            if segments.count == 2, segments[1].lowercased() == "$count" { return .userCount }
            subject = .user(segments[1])
            rest = Array(segments.dropFirst(2))
        case "groups":
            switch segments.count {
            case 1: return .groups
            case 2: return .group(id: segments[1])
            default:
                let relationship = segments[2].lowercased()
                let isKnown = ["members", "transitivemembers", "owners"].contains(relationship)
                guard isKnown, let listing = DirectoryListing.parse(Array(segments.dropFirst(3))) else {
                    return .unknownSegment(isKnown ? segments[3] : segments[2])
                }
                if relationship == "owners" { return .groupOwners(id: segments[1], listing) }
                return .groupMembers(id: segments[1], transitive: relationship == "transitivemembers", listing)
            }
        case "serviceprincipals" where segments.count == 1:
            return .servicePrincipals
        case "applications" where segments.count == 1:
            return .applications(countOnly: false)
        case "applications" where segments.count == 2:
            return segments[1].lowercased() == "$count" ? .applications(countOnly: true) : .application(.objectID(segments[1]))
        default:
            // `applications(appId='…')`, the alternate key Graph documents for an app registration.
            if segments.count == 1, let appID = keyInParentheses(first.replacingOccurrences(of: "appId=", with: "", options: .caseInsensitive), of: "applications") {
                return .application(.appID(appID))
            }
            // `users('id')`, the OData key form some SDKs write.
            if first.lowercased().hasPrefix("users('"), first.hasSuffix("')") {
                subject = .user(String(first.dropFirst(7).dropLast(2)))
                rest = Array(segments.dropFirst())
            } else {
                return .unknownSegment(first)
            }
        }
        var names = rest.map { $0.lowercased() }
        // `/me/calendar/events` and `/me/calendar/calendarView` name the default calendar's items.
        var offset = 0
        if names.first == "calendar", names.count > 1 {
            names.removeFirst()
            offset = 1
        }
        if names.isEmpty { return .user(subject) }
        if names == ["photo"] { return .photo(subject, size: nil) }
        if names == ["photo", "$value"] { return .photoValue(subject, size: nil) }
        if names == ["photos"] { return .photos(subject) }
        if names.count == 2, names[0] == "photos" { return .photo(subject, size: names[1]) }
        if names.count == 3, names[0] == "photos", names[2] == "$value" { return .photoValue(subject, size: names[1]) }
        if names == ["calendars"], offset == 0 { return .calendars(subject) }
        if rest.map({ $0.lowercased() }) == ["calendar"] { return .calendar(subject) }
        if names == ["events"] { return .events(subject) }
        if names.count == 2, names[0] == "events" { return .event(subject, id: rest[offset + 1]) }
        // `events('id')`, the OData key form the SDKs and Graph's own docs write.
        if names.count == 1, let id = keyInParentheses(rest[offset], of: "events") { return .event(subject, id: id) }
        if offset == 0, names.count >= 2, names[0] == "calendars" {
            if names.count == 2 { return .calendarByID(subject, id: rest[1]) }
            if names.count == 3, names[2] == "events" || names[2] == "calendarview" {
                return .calendarItems(subject, calendarID: rest[1], view: names[2] == "calendarview")
            }
        }
        if names == ["calendarview"] { return .calendarView(subject) }
        if names == ["mailboxsettings"], offset == 0 { return .mailboxSettings(subject) }
        if offset == 0, ["memberof", "transitivememberof"].contains(names[0]), let listing = DirectoryListing.parse(Array(rest.dropFirst())) {
            return .memberOf(subject, transitive: names[0] == "transitivememberof", listing)
        }
        if offset == 0, names[0] == "ownedobjects", let listing = DirectoryListing.parse(Array(rest.dropFirst())) {
            return .ownedObjects(subject, listing)
        }
        if names == ["getmemberobjects"], offset == 0 { return .memberObjects(subject) }
        let known: Set<String> = ["photo", "photos", "$value", "events", "calendarview", "calendar", "calendars", "mailboxsettings"]
        let unknown = rest.first { !known.contains($0.lowercased()) } ?? rest.last ?? first
        return .unknownSegment(unknown)
    }
}

extension GraphRoute: ServiceRoute {
    package static var service: ServiceName { .graph }
    package var journalKind: String { "graph" }
    package var ruleEndpoint: EndpointKind { .graph }
    package var resourceName: String? { endpointName }
}

/// Graph's routes: every path on Graph's host names (a hosts-file override of `graph.microsoft.com`), and
/// `/v1.0/…`, `/beta/…` and the UserInfo endpoint on FakeEntra's own host.
package struct GraphRoutes: RouteCollection {
    package var hosts: Set<String>

    package init(hosts: Set<String> = ["graph.microsoft.com"]) {
        self.hosts = hosts
    }

    package func ownsHost(of request: HTTPRequest) -> Bool {
        request.hostName.map(hosts.contains) ?? false   // the host name is lower-cased already
    }

    package func route(_ request: HTTPRequest) -> (any ServiceRoute)? { GraphRoute.parse(request, graphHost: ownsHost(of: request)) }
}
