package import FoundationGaps
import EntraCrypto

/// A user account as Entra ID (and Graph's `user` resource) knows it.
package struct DirectoryUser: Sendable, Codable, Equatable, Identifiable {
    /// Object id (`oid`), a lowercase GUID.
    package var id: String
    package var tenantID: String
    package var userPrincipalName: String
    package var displayName: String
    package var givenName: String?
    package var surname: String?
    package var mail: String?
    package var jobTitle: String?
    package var officeLocation: String?
    package var mobilePhone: String?
    package var businessPhones: [String]
    package var preferredLanguage: String?
    package var password: String
    /// Registered for multi-factor authentication (sign-in pages ask for a second factor).
    package var mfaRegistered: Bool
    /// Conditional Access demands MFA for this user: non-interactive grants get AADSTS50076.
    package var mfaRequired: Bool
    package var accountEnabled: Bool
    package var locked: Bool
    package var passwordExpired: Bool
    /// Refresh tokens issued before this instant are revoked (AADSTS50173), as after a password change.
    package var tokensValidFrom: Date?
    /// Sign-in names other than the UPN (B2C local accounts sign in with an email address).
    package var otherMails: [String]
    /// What an External ID sign-up collected beyond the user properties above (`city`, `extension_…_name`).
    package var attributes: [String: String]?

    package init(
        id: String, tenantID: String, userPrincipalName: String, displayName: String,
        givenName: String? = nil, surname: String? = nil, mail: String? = nil, jobTitle: String? = nil,
        officeLocation: String? = nil, mobilePhone: String? = nil, businessPhones: [String] = [],
        preferredLanguage: String? = nil, password: String, mfaRegistered: Bool = false, mfaRequired: Bool = false,
        accountEnabled: Bool = true, locked: Bool = false, passwordExpired: Bool = false,
        tokensValidFrom: Date? = nil, otherMails: [String] = []
    ) {
        self.id = id.lowercased()
        self.tenantID = tenantID.lowercased()
        self.userPrincipalName = userPrincipalName
        self.displayName = displayName
        self.givenName = givenName
        self.surname = surname
        self.mail = mail
        self.jobTitle = jobTitle
        self.officeLocation = officeLocation
        self.mobilePhone = mobilePhone
        self.businessPhones = businessPhones
        self.preferredLanguage = preferredLanguage
        self.password = password
        self.mfaRegistered = mfaRegistered
        self.mfaRequired = mfaRequired
        self.accountEnabled = accountEnabled
        self.locked = locked
        self.passwordExpired = passwordExpired
        self.tokensValidFrom = tokensValidFrom
        self.otherMails = otherMails
    }

    /// Why the account may not sign in or get tokens now, nil when it may: the one rule every service's
    /// sign-in, grant and page applies, each wording the refusal in its own catalogue.
    package var refusal: AccountRefusal? {
        if locked { return .locked }
        if !accountEnabled { return .disabled }
        return nil
    }

    package var isUsable: Bool { refusal == nil }

    /// Whether `presented` is this account's password: the one check of every sign-in with a password
    /// (pages, the password grant, native authentication, B2C's), compared in constant time. An account
    /// that signs in with codes has none, and no presented text is it.
    package func accepts(password presented: String) -> Bool {
        !password.isEmpty && ConstantTime.equals(password, presented)
    }

    /// True when `name` is one of this user's sign-in names (UPN, mail, other mails), ignoring case.
    package func answers(to name: String) -> Bool {
        let wanted = name.lowercased()
        return userPrincipalName.lowercased() == wanted || mail?.lowercased() == wanted
            || otherMails.contains { $0.lowercased() == wanted }
    }
}

/// What stops an account, in the order the service checks: a lockout (too many wrong passwords) before
/// a disabled account.
package enum AccountRefusal: Sendable, Equatable {
    case locked
    case disabled
}
