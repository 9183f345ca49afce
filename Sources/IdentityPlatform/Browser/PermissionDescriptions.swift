import ExchangeKernel
/// What the consent page says about a permission: Graph's own consent wording for the common ones,
/// a plain sentence for anything else.
enum PermissionDescriptions {
    struct Entry: Equatable {
        var title: String
        var detail: String
    }

    static func describe(_ permission: String, resource: Resource?) -> Entry {
        if let reserved = ReservedScope(scope: permission) { return describe(reserved) }
        if resource == nil || resource?.appID == Resource.graphAppID, let known = graph[permission.lowercased()] { return known }
        let name = resource?.displayName ?? "the API"
        return Entry(
            title: "Access \(name) (\(permission))",
            detail: "Allows the app to use the '\(permission)' permission of \(name) on your behalf."
        )
    }

    static func describe(_ scope: ReservedScope) -> Entry {
        switch scope {
        case .openid: Entry(title: "Sign you in", detail: "Allows you to sign in to the app with your account.")
        case .profile: Entry(title: "View your basic profile", detail: "Allows the app to see your basic profile (name, picture, user name).")
        case .email: Entry(title: "View your email address", detail: "Allows the app to read your primary email address.")
        case .offlineAccess: Entry(title: "Maintain access to data you have given it access to", detail: "Allows the app to see and update the data you gave it access to, even when you are not currently using the app.")
        }
    }

    private static let graph: [String: Entry] = [
        "user.read": Entry(title: "Sign you in and read your profile", detail: "Allows you to sign in to the app with your organizational account and lets the app read your profile."),
        "user.readwrite": Entry(title: "Read and update your profile", detail: "Allows the app to read your profile and to update it on your behalf."),
        "user.readbasic.all": Entry(title: "Read all users' basic profiles", detail: "Allows the app to read the basic profile of other users in your organization."),
        "user.read.all": Entry(title: "Read all users' full profiles", detail: "Allows the app to read the full profile of every user in your organization. Requires an administrator."),
        "user.readwrite.all": Entry(title: "Read and write all users' full profiles", detail: "Allows the app to read and write the full profile of every user in your organization. Requires an administrator."),
        "directory.read.all": Entry(title: "Read directory data", detail: "Allows the app to read data in your organization's directory. Requires an administrator."),
        "group.read.all": Entry(title: "Read all groups", detail: "Allows the app to list groups and read their properties and memberships. Requires an administrator."),
        "mail.read": Entry(title: "Read your mail", detail: "Allows the app to read email in your mailbox."),
        "mail.send": Entry(title: "Send mail as you", detail: "Allows the app to send mail as you."),
        "calendars.read": Entry(title: "Read your calendars", detail: "Allows the app to read events in your calendars."),
        "calendars.readwrite": Entry(title: "Have full access to your calendars", detail: "Allows the app to create, read, update and delete events in your calendars."),
        "contacts.read": Entry(title: "Read your contacts", detail: "Allows the app to read your contacts."),
        "files.read": Entry(title: "Read your files", detail: "Allows the app to read your files."),
        "files.readwrite": Entry(title: "Have full access to your files", detail: "Allows the app to read, create, update and delete your files."),
        "people.read": Entry(title: "Read your relevant people list", detail: "Allows the app to read a list of people in the order that's most relevant to you."),
        "presence.read": Entry(title: "Read your presence information", detail: "Allows the app to read your presence information."),
        "tasks.readwrite": Entry(title: "Create, read, update and delete your tasks and task lists", detail: "Allows the app to manage your tasks and task lists."),
    ]
}
