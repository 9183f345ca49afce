import ExchangeKernel
import IdentityPlatform
import Testing

/// The AADSTS catalogue: the lookup page and scenarios read the same entries.
@Suite struct ErrorCatalogueTests {
    @Test func codesAreFoundByNumber() {
        #expect(ErrorCatalogue.entry(code: 700082)?.error == "invalid_grant")
        #expect(ErrorCatalogue.entry(code: 90118) == nil, "AADB2C90118 is B2C's")
        #expect(ErrorCatalogue.entry(code: 1) == nil)
        #expect(ErrorCatalogue.entries.allSatisfy { $0.family == .aadsts })
    }

    @Test func scenarioOnlyCodesKeepTheirOwnStatus() {
        #expect(ErrorCatalogue.entry(code: 90055)?.explicitStatus == 429)
        #expect(ErrorCatalogue.entry(code: 90033)?.explicitStatus == 503)
        #expect(ErrorCatalogue.entry(code: 50126)?.explicitStatus == nil)
    }

    @Test func placeholdersUseTheNamesScenariosFillIn() {
        let texts = ErrorCatalogue.entries.map(\.message).joined()
        #expect(!texts.contains("{clientId}") && !texts.contains("{redirectUri}") && !texts.contains("{appName}"))
        #expect(ErrorCatalogue.entry(code: 700016)?.message.contains("'{client_id}'") == true)
    }
}
