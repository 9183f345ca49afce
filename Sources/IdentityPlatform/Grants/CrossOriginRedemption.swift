import FoundationGaps

/// Which redemptions a browser may make (cross-origin, with an `Origin` header): a single-page app's codes
/// and refresh tokens, and only those; and a single-page app's only from a browser (learn.microsoft.com,
/// "Single-page application: App registration", and the error codes reference, AADSTS9002326/9002327/700084).
/// A redirect URI nobody registered (lenient mode's native forms) has no platform: lenient mode lets it be
/// redeemed either way, strict mode as the public client it stands for.
enum CrossOriginRedemption {
    /// A single-page app's refresh tokens live this long from the code's redemption, however often used.
    static let spaRefreshTokenLifetime: TimeInterval = 86400

    /// The platform of the code's redirect URI, once the redemption's origin suits it.
    static func checkCode(redirectURI: String, application: Application, origin: String?, strict: Bool) throws(IdentityError) -> RedirectPlatform? {
        let platform = application.platform(ofRedirectURI: redirectURI) ?? (strict ? .webOrPublicClient : nil)
        try check(platform, origin: origin)
        return platform
    }

    /// A refresh token's redemption: from the browser for a single-page app's grant, never for another's.
    /// (Its fixed end is the redemption dialect's expiry check, AADSTS700084.)
    static func checkRefresh(_ grant: GrantContext, origin: String?, strict: Bool) throws(IdentityError) {
        try check(grant.platform ?? (strict ? .webOrPublicClient : nil), origin: origin)
    }

    private static func check(_ platform: RedirectPlatform?, origin: String?) throws(IdentityError) {
        switch (platform, origin) {
        case (.spa?, nil): throw .spaRedeemedNotCrossOrigin()
        case (.webOrPublicClient?, let origin?): throw .crossOriginNotSPA(origin: origin)
        default: return
        }
    }
}
