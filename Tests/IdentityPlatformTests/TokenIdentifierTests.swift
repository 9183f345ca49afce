import EntraCrypto
import Testing
@testable import IdentityPlatform

/// A service principal's id is derived from the app and tenant, the same however the two are spelled.
@Suite struct TokenIdentifierTests {
    @Test func servicePrincipalIDsStayTheDerivedOnes() {
        let derived = TokenIdentifiers.guid(from: "sp|contoso-tenant|app-client")
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "APP-Client", tenantID: "Contoso-Tenant") == derived)
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "app-client", tenantID: "contoso-tenant") == derived)
        // The same app in another tenant is another service principal.
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "app-client", tenantID: "fabrikam-tenant") == TokenIdentifiers.guid(from: "sp|fabrikam-tenant|app-client"))
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "app-client", tenantID: "fabrikam-tenant") != derived)
    }

    /// Refresh tokens and `rh` claims keep Entra's shapes: `1.A` or `0.A…` and a dot, around random bytes.
    @Test func opaqueValuesKeepTheirShapes() {
        let refresh = TokenIdentifiers.refreshToken()
        #expect(refresh.hasPrefix("1.A") && refresh.count == 3 + 128)
        #expect(Base64URL.decode(String(refresh.dropFirst(3)))?.count == 96)
        #expect(refresh != TokenIdentifiers.refreshToken())
        let hint = TokenIdentifiers.resourceHint()
        #expect(hint.hasPrefix("0.A") && hint.hasSuffix(".") && hint.count == 3 + 64 + 1)
    }
}
