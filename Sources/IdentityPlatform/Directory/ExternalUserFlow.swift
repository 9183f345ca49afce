package import LinearRegex
package import ExchangeKernel
import FoundationGaps
import Synchronization

/// The sign-up and sign-in user flow of an external tenant: which email method its customers use and what
/// sign-up collects. The service lets the user flow choose the method, not the app's request
/// (learn.microsoft.com, "Native authentication sign-up API reference": "the user flow associated with the
/// application selects the sign-up method"). FakeEntra keeps one user flow per external tenant.
package struct ExternalUserFlow: Sendable, Codable, Equatable {
    /// The user flow's "Email Accounts" identity provider (Microsoft Entra admin center, "Create a sign-up
    /// and sign-in user flow"). nil: each customer signs up with what the app can show, a password when it
    /// can ask for one, codes only otherwise.
    package enum EmailMethod: String, Sendable, Codable { case emailWithPassword, emailOneTimePasscode }

    package var emailMethod: EmailMethod?
    /// Collected at sign-up, in this order.
    package var attributes: [SignUpAttribute]

    package init(emailMethod: EmailMethod? = nil, attributes: [SignUpAttribute]) {
        self.emailMethod = emailMethod
        self.attributes = attributes
    }

    /// What an external tenant without its own user flow asks: the display name.
    package static let standard = ExternalUserFlow(attributes: [SignUpAttribute(name: "displayName", required: true)])

    /// Whether a customer may sign up with a password, given what the app can show.
    package func allowsPassword(appCanAsk: Bool) -> Bool {
        switch emailMethod {
        case .emailOneTimePasscode: false
        case .emailWithPassword: true
        case nil: appCanAsk
        }
    }

    /// Whether `user` signs in with a mailed code: the flow uses codes only, or the customer has no password.
    package func signsInWithCode(_ user: DirectoryUser) -> Bool {
        emailMethod == .emailOneTimePasscode || user.password.isEmpty
    }

    /// The attributes whose values fail their rule; attributes the flow does not collect are left alone, as
    /// the service ignores unknown attributes.
    package func invalidAttributes(in values: [String: String]) -> [SignUpAttribute] {
        attributes.filter { attribute in values[attribute.name].map { !attribute.accepts($0) } ?? false }
    }

    /// The required attributes without a value yet; a required box (boolean) must be ticked.
    package func missingAttributes(in values: [String: String]) -> [SignUpAttribute] {
        attributes.filter { attribute in
            guard attribute.required else { return false }
            let value = values[attribute.name] ?? ""
            return attribute.type == .boolean ? value.lowercased() != "true" : value.isEmpty
        }
    }

    /// The values this flow collects, the rest dropped.
    package func collected(from values: [String: String]) -> [String: String] {
        values.filter { name, value in attributes.contains { $0.name == name } && !value.isEmpty }
    }
}

/// One attribute a user flow collects: a built-in user property or a custom one
/// (`extension_{b2c-extensions-app id without dashes}_{name}`), described as the native API's
/// `required_attributes` describes it (`name`, `type`, `required`, `options.regex`).
package struct SignUpAttribute: Sendable, Codable, Equatable {
    package enum ValueType: String, Sendable, Codable { case string, boolean, int }

    package var name: String
    package var label: String?
    package var type: ValueType
    package var required: Bool
    package var regex: String?

    package init(name: String, label: String? = nil, type: ValueType = .string, required: Bool = false, regex: String? = nil) {
        self.name = name
        self.label = label
        self.type = type
        self.required = required
        self.regex = regex
    }

    /// The built-in user properties External ID's user flows collect, with the labels of its pages.
    package static let builtIn: [String: String] = [
        "displayName": "Display Name", "givenName": "Given Name", "surname": "Surname", "jobTitle": "Job Title",
        "city": "City", "country": "Country/Region", "postalCode": "Postal Code", "state": "State/Province",
        "streetAddress": "Street Address",
    ]

    /// The built-in properties a user keeps among their attributes (the address); the others have fields.
    package static let addressProperties: Set<String> = ["city", "country", "postalCode", "state", "streetAddress"]

    /// Whether `name` may be one of a user's attributes: an address property, or a directory extension
    /// `extension_{32 hex digits}_{name}` (how Graph names one).
    package static func isUserAttribute(_ name: String) -> Bool {
        addressProperties.contains(name) || isDirectoryExtension(name)
    }

    /// What is wrong with a user's attribute (`name`: `value`), in the words configuration and control-API
    /// refusals use; nil when the directory can hold it.
    package static func problem(name: String, value: String) -> String? {
        if !isUserAttribute(name) {
            return "\"\(name)\" is not a user attribute; expected extension_{app id without dashes}_{name} or an address property (\(addressProperties.sorted().joined(separator: ", ")))"
        }
        if value.count > longestValue { return "the value of \"\(name)\" is longer than \(longestValue) characters; expected at most that" }
        return nil
    }

    package static func isDirectoryExtension(_ name: String) -> Bool {
        let parts = name.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "extension" && parts[1].count == 32
            && parts[1].allSatisfy { $0.isASCII && $0.isHexDigit } && !parts[2].isEmpty
    }

    /// The longest value kept: Street Address's 1,024 characters, the longest built-in attribute
    /// (learn.microsoft.com, "User attributes in External ID").
    package static let longestValue = 1024

    package var displayLabel: String {
        if let label { return label }
        if let builtIn = Self.builtIn[name] { return builtIn }
        return String(name.split(separator: "_", maxSplits: 2).last ?? Substring(name))
    }

    /// Whether `value` fits the attribute's length, type and pattern; an empty value passes (`required` is
    /// checked apart). The pattern runs in linear time whatever it is (`LinearRegex`).
    package func accepts(_ value: String) -> Bool {
        guard !value.isEmpty else { return true }
        guard value.count <= Self.longestValue else { return false }
        switch type {
        case .boolean: guard ["true", "false"].contains(value.lowercased()) else { return false }
        case .int: guard Int(value) != nil else { return false }
        case .string: break
        }
        guard let regex else { return true }
        // A search, as .NET's Regex.IsMatch the service validates with: anchor the pattern to match it whole.
        return (try? Self.compiled(regex))?.matches(value) ?? false
    }

    /// Each pattern compiled once; patterns come from configuration files and scenarios only.
    private static let patterns = Mutex<[String: LinearRegex]>([:])

    /// The pattern compiled, or why it cannot be (configuration files report it where it is written).
    package static func compiled(_ pattern: String) throws(RegexSyntaxError) -> LinearRegex {
        if let known = patterns.withLock({ $0[pattern] }) { return known }
        let regex = try LinearRegex(pattern)
        patterns.withLock { $0[pattern] = regex }
        return regex
    }
}

extension Tenant {
    /// The user flow an external tenant's customers sign up and in with: its own, or the standard one.
    package var externalUserFlow: ExternalUserFlow { userFlow ?? .standard }
}

extension DirectoryUser {
    /// A sign-up attribute's value: a user property, or one kept with the account.
    package func attribute(_ name: String) -> String? {
        switch name {
        case "displayName": displayName
        case "givenName": givenName
        case "surname": surname
        case "jobTitle": jobTitle
        default: attributes?[name]
        }
    }

    /// Sets what sign-up collected: user properties where the user has one, the rest kept with the account.
    package mutating func setAttributes(_ values: [String: String]) {
        for (name, value) in values {
            switch name {
            case "displayName": displayName = value
            case "givenName": givenName = value
            case "surname": surname = value
            case "jobTitle": jobTitle = value
            default: attributes = (attributes ?? [:]).merging([name: value]) { _, new in new }
            }
        }
    }
}
