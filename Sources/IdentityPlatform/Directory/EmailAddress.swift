import LocatedJSON

/// What the service's sign-up and reset pages, B2C's and External ID's, and the native authentication API
/// accept as an email address: `EmailSyntax`'s rule with a dot in the domain. Light, as the service's own
/// page regex is (B2C's built-in `email` claim type): it catches typos, not every corner of RFC 5322.
package enum EmailAddress {
    package static func isValid(_ text: String) -> Bool {
        EmailSyntax.isAddress(text, domainNeedsDot: true)
    }
}
