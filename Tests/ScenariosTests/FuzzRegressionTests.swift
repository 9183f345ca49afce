import FakeEntraApp
import Testing
@testable import Scenarios

/// Inputs `scripts/fuzz` found to break a parser's promise, kept as they were found.
@Suite struct FuzzRegressionTests {
    /// fuzz har: a B2C redirect whose `error=` is no OAuth error code used to become a scenario the loader
    /// rejects (`"error" must match the pattern ^[a-z_]+$`); the importer now refuses, naming the request.
    @Test func harRedirectErrorThatIsNoErrorCodeIsRefusedNotWrittenInvalid() throws {
        let har = #"""
        {"log": {"version": "1.2", "entries": [{"startedDateTime": "2025-03-04T10:15:00.000R", "time": 150,
         "request": {"method": "GET", "url": "https://northwindb2c.b2clogin.com/northwindb2c.onmicrosoft.com/B2C_1_signupsignin/oauth2/v2.0/authorize?client_id=4b0db8c2-9f26-4417-8bde-3f0e3656f8e0&response_type=code&scope=openid", "headers": []},
         "response": {"status": 302, "headers": [{"name": "Location", "value": "https://app.example/cb#error=access_de72f988bf-86f1-41af-91ab-2d7cd011db47a+The+user+has+forgotten+their+password."}], "content": {"size": 0, "text": ""}},
         "timings": {"wait": 120}}]}}
        """#
        let error = try #require(throws: HARImportError.self) {
            try HARImporter.convert(har: Array(har.utf8), name: "fuzz-replay", source: "fuzz.har", routes: ApplicationRoutes.forRecordings)
        }
        #expect(error.message.hasPrefix("fuzz.har: cannot be replayed as a scenario:"))
        #expect(error.message.contains("request 1 (GET northwindb2c.b2clogin.com/"))
        #expect(error.message.contains("must match the pattern ^[a-z_]+$"))
    }
}
