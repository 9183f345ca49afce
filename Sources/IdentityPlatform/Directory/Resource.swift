import ExchangeKernel
import EntraHTTP
import FoundationGaps
/// Something an access token can be for: Microsoft Graph (built in) or an app that exposes an API.
package struct Resource: Sendable, Equatable {
    package struct DelegatedPermission: Sendable, Equatable, Codable {
        package var name: String
        /// Only an administrator can consent (AADSTS90094 for a user alone).
        package var adminConsentRequired: Bool
        package init(_ name: String, adminConsentRequired: Bool = false) {
            self.name = name
            self.adminConsentRequired = adminConsentRequired
        }
    }

    /// The resource's app id (`aud` of v2 tokens).
    package var appID: String
    /// Its App ID URI (`aud` of v1 tokens, the prefix of its scopes).
    package var identifierURI: String
    package var displayName: String
    package var delegatedPermissions: [DelegatedPermission]
    package var applicationPermissions: [String]
    /// 1 or 2.
    package var accessTokenVersion: Int
    /// Other names the resource answers to (Azure Resource Manager is both `management.core.windows.net`
    /// and `management.azure.com`).
    package var otherIdentifierURIs: [String]

    package init(appID: String, identifierURI: String, displayName: String, delegatedPermissions: [DelegatedPermission], applicationPermissions: [String], accessTokenVersion: Int, otherIdentifierURIs: [String] = []) {
        self.appID = appID.lowercased()
        self.identifierURI = identifierURI
        self.displayName = displayName
        self.delegatedPermissions = delegatedPermissions
        self.applicationPermissions = applicationPermissions
        self.accessTokenVersion = accessTokenVersion
        self.otherIdentifierURIs = otherIdentifierURIs
    }

    package func delegatedPermission(named name: String) -> DelegatedPermission? {
        delegatedPermissions.first { $0.name.equalsIgnoringCase(name) }
    }

    package func applicationPermission(named name: String) -> String? {
        applicationPermissions.first { $0.equalsIgnoringCase(name) }
    }

    /// True when `identifier` names this resource (app id or identifier URI, trailing `/` ignored).
    package func isNamed(_ identifier: String) -> Bool {
        // Compared in place, without lower-cased copies: every scope that names a resource is looked up here.
        identifier.trimmingSuffix("/").equalsWhenLowercased(appID) || identifierURI.namesSameResource(as: identifier)
            || (!otherIdentifierURIs.isEmpty && otherIdentifierURIs.contains { $0.namesSameResource(as: identifier) })
    }

    package static let graphAppID = "00000003-0000-0000-c000-000000000000"

    /// Microsoft Graph with its common permissions (names as Graph spells them).
    package static let microsoftGraph = Resource(
        appID: graphAppID,
        identifierURI: "https://graph.microsoft.com",
        displayName: "Microsoft Graph",
        delegatedPermissions: [
            .init("User.Read"), .init("User.ReadWrite"), .init("User.ReadBasic.All"),
            .init("User.Read.All", adminConsentRequired: true), .init("User.ReadWrite.All", adminConsentRequired: true),
            .init("Directory.Read.All", adminConsentRequired: true), .init("Group.Read.All", adminConsentRequired: true),
            .init("Mail.Read"), .init("Mail.Send"), .init("Calendars.Read"), .init("Calendars.ReadWrite"),
            .init("Contacts.Read"), .init("Files.Read"), .init("Files.ReadWrite"), .init("People.Read"),
            .init("Presence.Read"), .init("Tasks.ReadWrite"), .init("email"), .init("openid"), .init("profile"),
            .init("offline_access"), .init("Directory.AccessAsUser.All", adminConsentRequired: true),
            .init("Application.ReadWrite.All", adminConsentRequired: true), .init("Group.ReadWrite.All", adminConsentRequired: true),
        ],
        applicationPermissions: [
            "User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Group.Read.All", "Mail.Read",
            "Calendars.Read", "Calendars.ReadWrite", "Files.Read.All",
        ],
        accessTokenVersion: 1
    )
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        guard !suffix.isEmpty else { return self }
        // Byte by byte when both are ASCII (resource names on every scope); as characters otherwise.
        guard isPlainASCII, suffix.isPlainASCII else {
            var s = self
            while s.hasSuffix(suffix) { s.removeLast(suffix.count) }
            return s
        }
        let tail = suffix.utf8
        var end = utf8.endIndex
        while utf8.distance(from: utf8.startIndex, to: end) >= tail.count {
            let start = utf8.index(end, offsetBy: -tail.count)
            guard utf8[start..<end].elementsEqual(tail) else { break }
            end = start
        }
        return end == utf8.endIndex ? self : String(Substring(utf8[..<end]))
    }

    /// Whether two resource names (identifier URIs, audiences) name the same thing: case ignored as
    /// `lowercased()` ignores it, trailing `/` ignored.
    func namesSameResource(as other: String) -> Bool {
        trimmingSuffix("/").equalsWhenLowercased(other.trimmingSuffix("/"))
    }
}
