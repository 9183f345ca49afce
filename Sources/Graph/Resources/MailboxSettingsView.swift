import EntraHTTP
import FoundationGaps
import LocatedJSON
import ExchangeKernel
import IdentityPlatform

/// A user's `mailboxSettings` (time zone, language, working hours), which calendar apps read to choose the
/// zone they ask events in (`Prefer: outlook.timezone`).
enum MailboxSettingsView {
    static let permission = PermissionRequirement(
        delegated: ["MailboxSettings.Read", "MailboxSettings.ReadWrite"], application: ["MailboxSettings.Read", "MailboxSettings.ReadWrite"]
    )

    static func members(for user: DirectoryUser, content: GraphUserContent?) -> [(String, JSONValue)] {
        let zone = content?.mailboxZone.name ?? "UTC"
        let locale = user.preferredLanguage ?? "en-US"
        let never = JSONValue.object([("dateTime", .string("0001-01-01T00:00:00.0000000")), ("timeZone", .string("UTC"))])
        return [
            ("archiveFolder", .string("AAMkAG" + String(user.id.replacingOccurrences(of: "-", with: "").prefix(20)) + "AAA=")),
            ("timeZone", .string(zone)),
            ("delegateMeetingMessageDeliveryOptions", .string("sendToDelegateOnly")),
            ("dateFormat", .string(locale.hasPrefix("en-US") ? "M/d/yyyy" : "dd/MM/yyyy")),
            ("timeFormat", .string(locale.hasPrefix("en-US") ? "h:mm tt" : "HH:mm")),
            ("userPurpose", .object([("value", .string("user"))])),
            ("automaticRepliesSetting", .object([
                ("status", .string("disabled")), ("externalAudience", .string("all")),
                ("internalReplyMessage", .string("")), ("externalReplyMessage", .string("")),
                ("scheduledStartDateTime", never), ("scheduledEndDateTime", never),
            ])),
            ("language", .object([("locale", .string(locale)), ("displayName", .string(languageName(locale)))])),
            ("workingHours", .object([
                ("daysOfWeek", .strings(["monday", "tuesday", "wednesday", "thursday", "friday"])),
                ("startTime", .string("08:00:00.0000000")), ("endTime", .string("17:00:00.0000000")),
                ("timeZone", .object([("name", .string(zone))])),
            ])),
        ]
    }

    private static func languageName(_ locale: String) -> String {
        let names = [
            "en-US": "English (United States)", "en-GB": "English (United Kingdom)", "fr-FR": "French (France)",
            "de-DE": "German (Germany)", "es-ES": "Spanish (Spain)", "it-IT": "Italian (Italy)", "ja-JP": "Japanese (Japan)",
            "nl-NL": "Dutch (Netherlands)", "pt-BR": "Portuguese (Brazil)", "zh-CN": "Chinese (Simplified, China)",
        ]
        return names[locale] ?? locale
    }
}

extension GraphResources {
    func mailboxSettings(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: Access(own: MailboxSettingsView.permission, others: nil, denied: .accessDenied, notFound: Access.mailbox.notFound))
        let context = "\(exchange.metadataURL)#\(usersSegment(user))/mailboxSettings"
        var members = MailboxSettingsView.members(for: user, content: dataset.content(for: user))
        if let selected = try exchange.query.selected(from: members.map(\.0), type: "mailboxSettings") {
            members = selected.compactMap { name in members.first { $0.0 == name } }
        }
        return exchange.ok(.object([("@odata.context", .string(context))] + members))
    }
}
