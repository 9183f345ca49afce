import IdentityFixtures
import Testing
@testable import IdentityPlatform

@Suite struct ScopeRequestTests {
    let directory = TokenFixtures.directory

    @Test func reservedScopesStayApartFromPermissions() throws {
        let request = try ScopeRequest.parse("openid profile offline_access email https://graph.microsoft.com/User.Read", directory: directory)
        #expect(request.reserved == [.openid, .profile, .offlineAccess, .email])
        #expect(request.permissions == ["User.Read"])
        #expect(request.resource?.appID == Resource.graphAppID)
        #expect(request.resourceName == "https://graph.microsoft.com")
        #expect(request.wantsIDToken && request.wantsRefreshToken)
    }

    @Test func barePermissionMeansGraphAndTakesGraphsSpelling() throws {
        let request = try ScopeRequest.parse("user.read mail.read", directory: directory)
        #expect(request.resource == .microsoftGraph)
        #expect(request.resourceName == nil)
        #expect(request.permissions == ["User.Read", "Mail.Read"])
        #expect(request.responseScopes(granted: request.permissions) == ["User.Read", "Mail.Read"])
    }

    /// A scope or permission asked twice, in any case or spelling, is kept once; one scope alone needs no
    /// search for repeats.
    @Test func repeatedScopesAndPermissionsAreKeptOnce() throws {
        let repeated = try ScopeRequest.parse("User.Read user.read https://graph.microsoft.com/User.Read openid OpenID", directory: directory)
        #expect(repeated.scopes == ["User.Read", "https://graph.microsoft.com/User.Read", "openid"])
        #expect(repeated.permissions == ["User.Read"])
        #expect(repeated.reserved == [.openid])
        let single = try ScopeRequest.parse("https://graph.microsoft.com/.default", directory: directory)
        #expect(single.scopes == ["https://graph.microsoft.com/.default"] && single.isDefault && single.permissions.isEmpty)
        #expect(try ScopeRequest.parse("user.read", directory: directory).permissions == ["User.Read"])
    }

    @Test func apiScopesByIdentifierURIAndByAppID() throws {
        let byURI = try ScopeRequest.parse("api://\(TokenFixtures.apiAppID)/access_as_user", directory: directory)
        #expect(byURI.resource?.appID == TokenFixtures.apiAppID)
        #expect(byURI.responseScopes(granted: byURI.permissions) == ["api://\(TokenFixtures.apiAppID)/access_as_user"])
        let byID = try ScopeRequest.parse("\(TokenFixtures.apiAppID)/Data.Write", directory: directory)
        #expect(byID.resource?.appID == TokenFixtures.apiAppID)
        #expect(byID.permissions == ["Data.Write"])
    }

    @Test func defaultScopeAndDoubleSlashForm() throws {
        let plain = try ScopeRequest.parse("https://graph.microsoft.com/.default", directory: directory)
        #expect(plain.isDefault && plain.permissions.isEmpty)
        let doubled = try ScopeRequest.parse("https://graph.microsoft.com//.default openid", directory: directory)
        #expect(doubled.isDefault && doubled.resource == .microsoftGraph)
        #expect(doubled.responseScopes(granted: ["User.Read"]) == ["https://graph.microsoft.com/User.Read", "https://graph.microsoft.com//.default", "openid"])
    }

    /// A v1 resource named with its slash (`az login`'s ARM scope) keeps it when a grant's scopes are read
    /// back, so a device code's or refresh token's access token has the audience the client named.
    @Test func aV1ResourcesSpellingSurvivesTheGrantsScopes() throws {
        let asked = try ScopeRequest.parse("https://management.core.windows.net//.default", directory: .embeddedDefault)
        let held = asked.responseScopes(granted: ["user_impersonation"])
        #expect(held == ["https://management.core.windows.net//user_impersonation", "https://management.core.windows.net//.default"])
        let readBack = try ScopeRequest.parse(scopes: held, directory: .embeddedDefault)
        #expect(readBack.resourceName == "https://management.core.windows.net/" && readBack.resource?.appID == MicrosoftFirstParty.armAppID)
    }

    @Test func twoResourcesAreRefusedWith28000() {
        #expect(throws: IdentityError.multipleResources("User.Read api://\(TokenFixtures.apiAppID)/access_as_user")) {
            try ScopeRequest.parse("User.Read api://\(TokenFixtures.apiAppID)/access_as_user", directory: directory)
        }
    }

    @Test func sameResourceUnderTwoNamesIsOneResource() throws {
        let request = try ScopeRequest.parse("https://graph.microsoft.com/User.Read 00000003-0000-0000-c000-000000000000/Mail.Read", directory: directory)
        #expect(request.permissions == ["User.Read", "Mail.Read"])
        #expect(request.resourceName == "https://graph.microsoft.com")
    }

    @Test func unknownResourceAndPermission() {
        #expect(throws: IdentityError.resourceNotFound("api://nothing-here")) {
            try ScopeRequest.parse("api://nothing-here/read", directory: directory)
        }
        #expect(throws: IdentityError.scopeNotOnResource(scope: "Nope", resourceAppID: TokenFixtures.apiAppID)) {
            try ScopeRequest.parse("api://\(TokenFixtures.apiAppID)/Nope", directory: directory)
        }
    }

    @Test func unlistedGraphPermissionAcceptedUnlessStrict() throws {
        let lenient = try ScopeRequest.parse("Sites.Read.All", directory: directory)
        #expect(lenient.permissions == ["Sites.Read.All"])
        var strict = IdentityOptions()
        strict.strict = true
        #expect(throws: IdentityError.self) { try ScopeRequest.parse("Sites.Read.All", directory: directory, options: strict) }
        #expect(throws: IdentityError.self) { try ScopeRequest.parse("not-a-permission", directory: directory) }
    }

    @Test func v1ResourceParameter() throws {
        let request = try ScopeRequest.parse(v1Resource: "https://graph.microsoft.com", scope: nil, directory: directory)
        #expect(request.fromV1Resource && request.isDefault && request.wantsIDToken && request.wantsRefreshToken)
        #expect(request.resourceName == "https://graph.microsoft.com")
        #expect(throws: IdentityError.self) { try ScopeRequest.parse(v1Resource: "https://unknown.example", scope: nil, directory: directory) }
    }

    @Test func consentEvaluationSplitsUserAndAdminConsent() throws {
        var directory = self.directory
        let client = directory.application(clientID: TokenFixtures.webAppID)!
        let user = directory.user(id: TokenFixtures.adele)!
        let request = try ScopeRequest.parse("User.Read User.Read.All Mail.Send", directory: directory)
        var evaluation = directory.evaluateConsent(request, client: client, user: user)
        #expect(evaluation.needingUserConsent == ["User.Read", "Mail.Send"])
        #expect(evaluation.needingAdminConsent == ["User.Read.All"])
        directory.recordConsent(client: client, resource: .microsoftGraph, permissions: ["User.Read"], user: user)
        evaluation = directory.evaluateConsent(request, client: client, user: user)
        #expect(evaluation.alreadyGranted == ["User.Read"])
        #expect(evaluation.needingUserConsent == ["Mail.Send"])
        #expect(!evaluation.isSatisfied)
    }

    @Test func defaultExpandsToConfiguredPlusGranted() throws {
        var directory = self.directory
        let client = directory.application(clientID: TokenFixtures.webAppID)!
        let user = directory.user(id: TokenFixtures.adele)!
        directory.recordConsent(client: client, resource: .microsoftGraph, permissions: ["Calendars.Read"], user: user)
        let request = try ScopeRequest.parse("https://graph.microsoft.com/.default", directory: directory)
        #expect(directory.delegatedPermissions(for: request, client: client, userID: user.id, tenantID: user.tenantID) == ["User.Read", "Mail.Read", "Calendars.Read"])
        #expect(directory.applicationPermissions(for: request, client: client) == ["User.Read.All"])
    }

    @Test func hostileScopeParametersAreRefusedQuickly() throws {
        let many = (0..<10_000).map { "Perm\($0).Read" }.joined(separator: " ")
        #expect(throws: IdentityError.self) { try ScopeRequest.parse(many, directory: directory) }
        let allowed = (0..<ScopeRequest.maximumScopeCount).map { "Perm\($0).Read" }.joined(separator: " ")
        #expect(try ScopeRequest.parse(allowed, directory: directory).permissions.count == ScopeRequest.maximumScopeCount)
    }
}

@Suite struct ScopeWordingTests {
    @Test func scopesAreSplitOnEveryWhitespaceByteAndReservedScopesIgnoreCase() throws {
        let request = try ScopeRequest.parse("OpenID\tOFFLINE_ACCESS\nhttps://graph.microsoft.com/.DEFAULT  Profile\rEMAIL", directory: TokenFixtures.directory)
        #expect(request.reserved == [.openid, .offlineAccess, .profile, .email])
        #expect(request.isDefault)
        #expect(request.scopes == ["OpenID", "OFFLINE_ACCESS", "https://graph.microsoft.com/.DEFAULT", "Profile", "EMAIL"])
        #expect(ReservedScope(scope: "openid2") == nil && ReservedScope(scope: "") == nil)
    }

    /// Split as characters, `\r\n` is one and not a separator: `User.Read\r\nMail.Read` is one (ill-formed)
    /// permission, and a combining mark after `/` keeps it from naming a resource.
    @Test func textThatIsNotPlainASCIIIsSplitAsCharacters() throws {
        #expect(throws: IdentityError.self) { try ScopeRequest.parse("User.Read\r\nMail.Read", directory: TokenFixtures.directory) }
        #expect(ScopeRequest.split("api://x/\u{301}read") == ("api:/", "x/\u{301}read"))
        #expect(ScopeRequest.split("api://x/read") == ("api://x", "read"))
    }

    @Test func resourcesAreNamedWithTrailingSlashesTrimmedInAnyCase() throws {
        #expect(Resource.microsoftGraph.isNamed("HTTPS://GRAPH.MICROSOFT.COM//"))
        #expect(Resource.microsoftGraph.isNamed(Resource.graphAppID.uppercased()))
        #expect(!Resource.microsoftGraph.isNamed("https://graph.microsoft.com.evil"))
        #expect("a///".trimmingSuffix("/") == "a" && "///".trimmingSuffix("/") == "" && "abab".trimmingSuffix("ab") == "" && "x".trimmingSuffix("") == "x")
        // A prepended mark joins the slash into one character, which is not `/`.
        #expect("\u{0600}/".trimmingSuffix("/") == "\u{0600}/" && "é//".trimmingSuffix("/") == "é")
        // Lower-cased, the long s stays itself: it names no resource, as before.
        #expect(!Resource.microsoftGraph.isNamed("httpſ://graph.microsoft.com"))
    }
}
