import Testing
@testable import IdentityPlatform

/// A service principal's id is derived from the app and tenant, kept once derived, and the same however
/// the two are spelled or however many others were derived in between.
@Suite struct TokenIdentifierTests {
    @Test func servicePrincipalIDsStayTheDerivedOnes() {
        let derived = TokenIdentifiers.guid(from: "sp|contoso-tenant|app-client")
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "APP-Client", tenantID: "Contoso-Tenant") == derived)
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "app-client", tenantID: "contoso-tenant") == derived)
        var seen = Set<String>()
        for index in 0...TokenIdentifiers.servicePrincipalIDLimit {
            let id = TokenIdentifiers.servicePrincipalID(clientID: "client-\(index)", tenantID: "tenant")
            #expect(id == TokenIdentifiers.guid(from: "sp|tenant|client-\(index)"))
            seen.insert(id)
        }
        #expect(seen.count == TokenIdentifiers.servicePrincipalIDLimit + 1)
        #expect(TokenIdentifiers.servicePrincipalID(clientID: "app-client", tenantID: "contoso-tenant") == derived)
    }
}
