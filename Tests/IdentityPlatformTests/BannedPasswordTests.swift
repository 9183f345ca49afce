import IdentityFixtures
import Testing
@testable import IdentityPlatform

/// Password Protection's evaluation, checked on the reference's own examples (learn.microsoft.com,
/// "Eliminate bad passwords using Microsoft Entra Password Protection").
@Suite struct BannedPasswordTests {
    let contoso = BannedPasswordCheck(bannedTerms: ["contoso", "blank"], names: [])

    @Test func theReferencesScoresHold() {
        #expect(contoso.score(BannedPasswordCheck.normalized("C0ntos0Blank12")) == 4)
        #expect(!contoso.accepts("C0ntos0Blank12"), "[contoso] + [blank] + [1] + [2] = 4 points")
        #expect(contoso.score(BannedPasswordCheck.normalized("ContoS0Bl@nkf9!")) == 5)
        #expect(contoso.accepts("ContoS0Bl@nkf9!"), "[contoso] + [blank] + [f] + [9] + [!] = 5 points")
        #expect(!contoso.accepts("Bl@nK"), "normalized to blank")
    }

    @Test func aTermWithinOneEditMatches() {
        let check = BannedPasswordCheck(bannedTerms: ["abcdef"], names: [])
        for variant in ["abcdeg", "abcdefg", "abcde"] { #expect(check.score(BannedPasswordCheck.normalized(variant)) == 1, "\(variant)") }
        #expect(check.score(BannedPasswordCheck.normalized("abcxyz")) == 6, "two edits away is no match")
    }

    @Test func aNameInThePasswordRefusesIt() {
        let check = BannedPasswordCheck(bannedTerms: [], names: ["Poll", "Li"])
        #expect(!check.accepts("p0LL23fb"), "the reference's user named Poll")
        #expect(check.accepts("Lisbon2024!"), "names shorter than four characters are not matched")
    }

    @Test func theNativeAPIRefusesABannedPasswordWithItsSuberror() throws {
        var directory = ExternalUserFlowTests.directory(.standard)
        if let index = directory.tenants.firstIndex(where: { $0.id == Directory.woodgroveTenantID }) { directory.tenants[index].bannedPasswords = ["pumpkin"] }
        let service = TokenFixtures.service(directory: directory).0
        let refused = ExternalUserFlowTests.start("pat@woodgrove.example", extra: [("password", "Pumpk1n!x")], service: service)
        #expect(refused.status == 400 && refused.body["suberror"] as? String == "password_banned", "[pumpkin] + [!] + [x] = 3 points")
        #expect(ExternalUserFlowTests.start("pat@woodgrove.example", extra: [("password", "Pumpk1n!xYz9")], service: service).status == 200, "7 points")
        let tenantName = ExternalUserFlowTests.start("pat@woodgrove.example", extra: [("password", "W00dgrove!x7Q")], service: service)
        #expect(tenantName.body["suberror"] as? String == "password_banned", "the tenant's name")
        #expect(ExternalUserFlowTests.start("pat@woodgrove.example", extra: [("password", "Str0ng!pass")], service: service).status == 200)
    }
}
