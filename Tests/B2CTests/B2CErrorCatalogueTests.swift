import ExchangeKernel
@testable import B2C
import IdentityPlatform
import Testing

/// B2C's own AADB2C catalogue: what a scenario naming only an AADB2C code is answered with.
@Suite struct B2CErrorCatalogueTests {
    @Test func codesAreFoundByNumber() {
        #expect(B2CErrorCatalogue.entry(code: 90118)?.message == "The user has forgotten their password.")
        #expect(B2CErrorCatalogue.entry(code: 90080)?.message.contains("Current time") == false,
                "named by a scenario, 90080 has no grant instants to quote")
        #expect(B2CErrorCatalogue.entry(code: 700082) == nil, "AADSTS700082 is Entra's")
        #expect(B2CErrorCatalogue.entries.allSatisfy { $0.family == .aadb2c })
    }

    @Test func entriesArePlaceholderedLikeEntras() {
        let texts = B2CErrorCatalogue.entries.map(\.message).joined()
        #expect(!texts.contains("{clientId}") && !texts.contains("{redirectUri}"))
        #expect(B2CErrorCatalogue.entry(code: 90006)?.message.contains("'{redirect_uri}'") == true)
    }
}
