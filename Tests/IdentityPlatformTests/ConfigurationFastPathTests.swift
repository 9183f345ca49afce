import LocatedJSON
import Testing
@testable import IdentityPlatform

/// The users of a schema-valid file are read straight from the parsed tree; anything of another type sends
/// the whole file back to JSONDecoder (nil here).
@Suite struct ConfigurationFastPathTests {
    @Test func usersAreReadFromTheTree() throws {
        let tree = try LocatedJSON.parse(Array(#"""
        {"users": [{"userPrincipalName": "a@contoso.com", "displayName": "A", "password": "p", "otherMails": ["x@y.z"],
                    "mfaRequired": true, "locked": false}]}
        """#.utf8), file: "config.json")
        let users = try #require(ConfigurationFile.UserEntry.entries(validated: tree))
        #expect(users.map(\.userPrincipalName) == ["a@contoso.com"])
        #expect(users.first?.password == "p")
        #expect(users.first?.otherMails == ["x@y.z"])
        #expect(users.first?.mfaRequired == true)
        #expect(users.first?.locked == false)
    }

    @Test(arguments: [#"{"users": [{"userPrincipalName": 1, "displayName": "A"}]}"#,
                      #"{"users": [{"userPrincipalName": "a@contoso.com", "displayName": "A", "locked": "no"}]}"#,
                      #"{"users": [{"userPrincipalName": "a@contoso.com", "displayName": "A", "otherMails": ["x", 2]}]}"#,
                      #"{"users": [{"userPrincipalName": "a@contoso.com", "displayName": "A", "unknown": 1}]}"#,
                      #"{"users": [{"displayName": "A"}]}"#])
    func anythingElseGoesToTheDecoder(text: String) throws {
        let tree = try LocatedJSON.parse(Array(text.utf8), file: "config.json")
        #expect(ConfigurationFile.UserEntry.entries(validated: tree) == nil)
    }
}
