import EntraHTTP
import Testing

/// The token mint's access rule, which needs a request from another address than loopback (the mint's
/// answers themselves are tested through FakeEntraTesting, in FakeEntraAppTests' TokenMintTests).
@Suite struct TokenMintAccessTests {
    @Test func sameAccessRuleAsTheControlAPI() {
        #expect(ConsoleHarness().postJSON("/_fakeentra/tokens", "{}", from: "192.0.2.1").status.code == 403)
        let guarded = ConsoleHarness(secret: "s3cret")
        #expect(guarded.postJSON("/_fakeentra/tokens", "{}").status.code == 401)
        #expect(guarded.postJSON("/_fakeentra/tokens", "{}", headers: ["Authorization": "Bearer s3cret"], from: "192.0.2.1").status.code == 201)
    }
}
