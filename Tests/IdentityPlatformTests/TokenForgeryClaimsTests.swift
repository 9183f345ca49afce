import ExchangeKernel
import Foundation
import IdentityPlatform
import LocatedJSON
import Testing

@Suite struct TokenForgeryClaimsTests {
    /// B2C's tokens name their tenant in `iss` only: `wrongTenant` changes it there.
    @Test func wrongTenantReachesAnIssuerWithoutTid() {
        var claims = ClaimSet()
        claims.set("iss", "https://fabrikamb2c.b2clogin.com/b6c1a7d2-4e3f-4a5b-9c8d-7e6f5a4b3c21/v2.0/")
        TokenForgery.wrongTenant.forge(&claims, now: Date())
        let forged = LocatedJSON.object(body: claims.bytes)
        #expect(forged?["iss"]?.string == "https://fabrikamb2c.b2clogin.com/\(TokenForgery.otherTenantID)/v2.0/")
        #expect(forged?["tid"] == nil, "no tid is added where the service writes none")
    }
}
