@testable import FakeEntraApp
import IdentityPlatform
import Testing

/// What `serve` prints: the authority as MSAL takes it, and each user by the name they sign in with.
@Suite struct StartupBannerTests {
    let lines = StartupBanner.lines(baseURL: "https://127.0.0.1:8443", plainURL: nil, directory: .embeddedDefault, b2c: nil, certificateAuthority: "/certs/ca.pem")

    @Test func theFirstLineIsTheBaseURLAndTheAuthorityIsMSALs() {
        #expect(lines.first == "https://127.0.0.1:8443")
        #expect(lines.contains("MSAL authority: https://127.0.0.1:8443/<tenant>   OpenID Connect: https://127.0.0.1:8443/<tenant>/v2.0   Graph: https://127.0.0.1:8443/v1.0"))
    }

    @Test func externalIDCustomersAreListedByTheirEmailWithTheTenantsAuthorities() throws {
        let tenant = try #require(lines.firstIndex { $0.hasPrefix("Tenant woodgrove.onmicrosoft.com (external)") })
        #expect(lines[tenant + 1] == "  authority: https://127.0.0.1:8443/woodgrove.onmicrosoft.com, or as External ID names it https://woodgrove.ciamlogin.com/ (docs/external-id.md)")
        #expect(lines[tenant + 2] == "  user jordan@woodgrove.example")
        #expect(!lines.contains { $0.contains("@woodgrove.onmicrosoft.com") && $0.hasPrefix("  user") })
        #expect(lines.contains("  user adele.vance@contoso.onmicrosoft.com"))
    }
}
