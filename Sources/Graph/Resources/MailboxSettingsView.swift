import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform

/// A user's `mailboxSettings` (time zone, language, working hours), which calendar apps read to choose the
/// zone they ask events in (`Prefer: outlook.timezone`).
enum MailboxSettingsView {
    static let permission = PermissionRequirement(
        delegated: ["MailboxSettings.Read", "MailboxSettings.ReadWrite"], application: ["MailboxSettings.Read", "MailboxSettings.ReadWrite"]
    )

    static func members(for user: DirectoryUser, content: GraphUserContent?) -> [GraphJSON.Member] {
        let zone = content?.mailboxZone.name ?? "UTC"
        let locale = user.preferredLanguage ?? "en-US"
        let never = GraphJSON.object([.init("dateTime", .string("0001-01-01T00:00:00.0000000")), .init("timeZone", .string("UTC"))])
        return [
            .init("archiveFolder", .string("AAMkAG" + String(user.id.replacingOccurrences(of: "-", with: "").prefix(20)) + "AAA=")),
            .init("timeZone", .string(zone)),
            .init("delegateMeetingMessageDeliveryOptions", .string("sendToDelegateOnly")),
            .init("dateFormat", .string(locale.hasPrefix("en-US") ? "M/d/yyyy" : "dd/MM/yyyy")),
            .init("timeFormat", .string(locale.hasPrefix("en-US") ? "h:mm tt" : "HH:mm")),
            .init("userPurpose", .object([.init("value", .string("user"))])),
            .init("automaticRepliesSetting", .object([
                .init("status", .string("disabled")), .init("externalAudience", .string("all")),
                .init("internalReplyMessage", .string("")), .init("externalReplyMessage", .string("")),
                .init("scheduledStartDateTime", never), .init("scheduledEndDateTime", never),
            ])),
            .init("language", .object([.init("locale", .string(locale)), .init("displayName", .string(languageName(locale)))])),
            .init("workingHours", .object([
                .init("daysOfWeek", .strings(["monday", "tuesday", "wednesday", "thursday", "friday"])),
                .init("startTime", .string("08:00:00.0000000")), .init("endTime", .string("17:00:00.0000000")),
                .init("timeZone", .object([.init("name", .string(zone))])),
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
        if let selected = try exchange.query.selected(from: members.map(\.name), type: "mailboxSettings") {
            members = selected.compactMap { name in members.first { $0.name == name } }
        }
        return exchange.ok(.object([.init("@odata.context", .string(context))] + members))
    }
}
