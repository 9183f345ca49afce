package import FoundationGaps
package import IdentityPlatform

extension BearerAccessToken {
    /// True when the token carries one of the permissions a resource accepts: a delegated permission in `scp`
    /// for user tokens, an application permission in `roles` for app tokens (names compare ignoring case).
    package func holds(_ requirement: PermissionRequirement) -> Bool {
        let (held, accepted) = kind == .delegated ? (scopes, requirement.delegated) : (roles, requirement.application)
        return held.contains { name in accepted.contains { $0.caseInsensitiveCompare(name) == .orderedSame } }
    }
}

/// The permissions any one of which lets a caller use a Graph resource (the "least to most privileged"
/// lists of Graph's API reference).
package struct PermissionRequirement: Sendable, Equatable {
    package var delegated: [String]
    package var application: [String]

    package init(delegated: [String], application: [String]) {
        self.delegated = delegated
        self.application = application
    }

    /// The signed-in user's own profile (`/me`, and `/users/{self}`).
    package static let ownProfile = PermissionRequirement(
        delegated: ["User.Read", "User.ReadWrite", "User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All",
                    "Directory.Read.All", "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: []
    )

    /// Another user's profile, or the list of users.
    package static let anyProfile = PermissionRequirement(
        delegated: ["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All",
                    "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: ["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"]
    )

    /// A calendar's events.
    package static let calendar = PermissionRequirement(
        delegated: ["Calendars.ReadBasic", "Calendars.Read", "Calendars.ReadWrite"],
        application: ["Calendars.ReadBasic.All", "Calendars.Read", "Calendars.ReadWrite"]
    )
}

extension BearerTokenValidator {
    /// Graph's audiences: its app id and its URI, with or without the slash.
    package static let graphAudiences: Set<String> = [
        Resource.graphAppID, "https://graph.microsoft.com", "https://graph.microsoft.com/",
    ]

    /// A bearer token for Graph.
    package static func graph(clockSkew: TimeInterval = 300) -> BearerTokenValidator {
        BearerTokenValidator(clockSkew: clockSkew, audiences: graphAudiences)
    }
}
