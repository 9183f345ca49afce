import IdentityPlatform
import Testing

/// The one AADSTS/AADB2C catalogue: the lookup page and scenarios read the same entries.
@Suite struct ErrorCatalogueTests {
    @Test func bothFamiliesAreFoundByCode() {
        #expect(ErrorCatalogue.entry(.aadsts, code: 700082)?.error == "invalid_grant")
        #expect(ErrorCatalogue.entry(.aadb2c, code: 90118)?.message == "The user has forgotten their password.")
        #expect(ErrorCatalogue.entry(.aadb2c, code: 90080)?.message.contains("Current time") == false)
        #expect(ErrorCatalogue.entry(.aadsts, code: 90118) == nil, "families do not mix")
        #expect(ErrorCatalogue.entry(.aadsts, code: 1) == nil)
    }

    @Test func scenarioOnlyCodesKeepTheirOwnStatus() {
        #expect(ErrorCatalogue.entry(.aadsts, code: 90055)?.explicitStatus == 429)
        #expect(ErrorCatalogue.entry(.aadsts, code: 90033)?.explicitStatus == 503)
        #expect(ErrorCatalogue.entry(.aadsts, code: 50126)?.explicitStatus == nil)
    }

    @Test func placeholdersUseTheNamesScenariosFillIn() {
        let texts = ErrorCatalogue.entries.map(\.message).joined()
        #expect(!texts.contains("{clientId}") && !texts.contains("{redirectUri}") && !texts.contains("{appName}"))
        #expect(ErrorCatalogue.entry(.aadsts, code: 700016)?.message.contains("'{client_id}'") == true)
    }
}
