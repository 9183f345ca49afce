import Conformance
import Testing

@Suite struct CatalogueTests {
    @Test func everyCaseScenarioDecodes() throws {
        #expect(Catalogue.all.count >= 30)
        for conformanceCase in Catalogue.all {
            if case .failure(let problems) = conformanceCase.scenario() {
                Issue.record("\(conformanceCase.id): \(problems)")
            }
        }
    }
}
