import Foundation

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

    /// The values that fail their attribute's rule, by name; attributes the flow does not collect are left
    /// alone, as the service ignores unknown attributes.
    package func invalidAttributes(in values: [String: String]) -> [String] {
        attributes.filter { attribute in values[attribute.name].map { !attribute.accepts($0) } ?? false }.map(\.name)
    }

    /// The required attributes without a value yet.
    package func missingAttributes(in values: [String: String]) -> [SignUpAttribute] {
        attributes.filter { $0.required && (values[$0.name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
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

    /// A custom attribute's name as the native API and Graph spell it.
    package static let customNamePattern = "^extension_[0-9a-fA-F]{32}_[A-Za-z][A-Za-z0-9_]*$"

    package var displayLabel: String {
        if let label { return label }
        if let builtIn = Self.builtIn[name] { return builtIn }
        return String(name.split(separator: "_", maxSplits: 2).last ?? Substring(name))
    }

    /// Whether `value` fits the attribute's type and pattern; an empty value passes (`required` is checked apart).
    package func accepts(_ value: String) -> Bool {
        guard !value.isEmpty else { return true }
        switch type {
        case .boolean: guard ["true", "false"].contains(value.lowercased()) else { return false }
        case .int: guard Int(value) != nil else { return false }
        case .string: break
        }
        guard let regex else { return true }
        guard let expression = try? NSRegularExpression(pattern: regex) else { return false }
        // A search, as .NET's Regex.IsMatch the service validates with: anchor the pattern to match it whole.
        return expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}

extension Tenant {
    /// The user flow an external tenant's customers sign up with; nil for other tenants.
    package var signUpFlow: ExternalUserFlow? {
        guard kind == .external else { return nil }
        return userFlow ?? .standard
    }
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
