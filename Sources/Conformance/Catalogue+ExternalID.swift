/// Browser-based clients of Microsoft Entra External ID: a customer of an external tenant signs in at
/// its authority with their email, through the tenant's pages.
extension Catalogue {
    static let externalID: [ConformanceCase] = [
        ConformanceCase(
            id: "externalid.sign-in-refresh", title: "Customer sign-in and silent refresh", level: .required,
            service: "Microsoft Entra External ID: a customer signs in with their email at the external tenant's authority; tokens name the tenant's issuer, and access tokens live 2 minutes, so the next token request needs a refresh.",
            correctClient: "A correct app signs the customer in at the external tenant's authority, then gets the next token with the refresh token, silently.",
            verdictRule: "FAILED when the sign-in fails, or the second token comes from a second sign-in instead of a refresh.",
            citations: [Source.externalIDTokens, Source.msalApplication],
            rules: [Rules.shortLivedTokens],
            journey: [.signIn(1), .getToken(2)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.externalIDTokens),
                Check("refreshes-silently", .someDuring(step: 2, .refresh), citation: Source.msalApplication),
                Check("no-second-sign-in", .noneDuring(step: 2, .authorize), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 2, .succeeds), citation: Source.externalIDTokens),
            ],
            externalID: true
        ),
        goesInteractive(
            id: "externalid.password-reset-revokes", title: "Refresh after a password reset (AADSTS50173)", code: "AADSTS50173", suberror: nil,
            service: "Microsoft Entra External ID: the customer reset their password (self-service, from another device): the silent refresh fails with invalid_grant, AADSTS50173, as the reset revoked earlier refresh tokens.",
            citations: [Source.externalIDPasswordReset, Source.refreshTokens], externalID: true
        ),
    ]
}
