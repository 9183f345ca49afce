import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Graph

@Suite("/me and /users")
struct UserEndpointTests {
    let fixture = GraphFixture()

    @Test func meHasGraphsDefaultShapeExactly() {
        let response = fixture.get("/v1.0/me", token: fixture.token())
        #expect(response.status == .ok)
        // The documented `GET /me` response: eleven properties in this order, null when unset.
        #expect(response.bodyText == #"{"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#users/$entity","businessPhones":["+1 425 555 0109"],"displayName":"Adele Vance","givenName":"Adele","jobTitle":"Retail Manager","mail":"adele.vance@contoso.onmicrosoft.com","mobilePhone":null,"officeLocation":"18/2111","preferredLanguage":"en-US","surname":"Vance","userPrincipalName":"adele.vance@contoso.onmicrosoft.com","id":"6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"}"#)
    }

    @Test func successHeadersAreGraphs() {
        let response = fixture.get("/v1.0/me", token: fixture.token(), headers: [("client-request-id", "c0ffee00-0000-4000-8000-000000000001")])
        #expect(response.headers["Content-Type"] == "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8")
        #expect(response.headers["OData-Version"] == "4.0")
        #expect(response.headers["client-request-id"] == "c0ffee00-0000-4000-8000-000000000001")
        #expect(response.headers["request-id"]?.count == 36)
        #expect(response.headers["request-id"] != response.headers["client-request-id"])
        #expect(response.headers["Date"] == "Wed, 08 Jan 2025 12:00:00 GMT")
    }

    @Test func clientRequestIDDefaultsToTheRequestID() {
        let response = fixture.get("/v1.0/me", token: fixture.token())
        #expect(response.headers["client-request-id"] == response.headers["request-id"])
        let other = fixture.get("/v1.0/me", token: fixture.token())
        #expect(other.headers["request-id"] != response.headers["request-id"])
    }

    @Test func trailingSlashAndBetaAreServed() {
        #expect(fixture.get("/v1.0/me/", token: fixture.token()).json["displayName"] as? String == "Adele Vance")
        let beta = fixture.get("/beta/me", token: fixture.token())
        #expect(beta.json["@odata.context"] as? String == "https://graph.microsoft.com/beta/$metadata#users/$entity")
    }

    @Test func selectNarrowsTheBodyAndTheContext() {
        let response = fixture.get("/v1.0/me?$select=displayName,MAIL", token: fixture.token())
        #expect(response.bodyText == #"{"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#users(displayName,mail)/$entity","displayName":"Adele Vance","mail":"adele.vance@contoso.onmicrosoft.com"}"#)
        let extra = fixture.get("/v1.0/me?%24select=accountEnabled,userType,id", token: fixture.token())
        #expect(extra.bodyText.hasSuffix(#"#users(accountEnabled,userType,id)/$entity","accountEnabled":true,"userType":"Member","id":"6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"}"#))
    }

    @Test func realPropertiesWeDoNotModelAreNullOrEmpty() {
        let response = fixture.get("/v1.0/me?$select=id,department,createdDateTime,skills,onPremisesSyncEnabled", token: fixture.token())
        #expect(response.status == .ok)
        #expect(response.bodyText.hasSuffix(#""id":"6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51","department":null,"createdDateTime":null,"skills":[],"onPremisesSyncEnabled":null}"#))
    }

    @Test func unknownSelectPropertyIsABadRequest() {
        let response = fixture.get("/v1.0/me?$select=displayName,shoeSize", token: fixture.token())
        #expect(response.status == .badRequest)
        #expect(response.bodyText == expectedErrorBody(
            code: "BadRequest", message: "Parsing OData Select and Expand failed: Could not find a property named 'shoeSize' on type 'microsoft.graph.user'.",
            response: response
        ))
    }

    @Test func unsupportedQueryOptionIsABadRequest() {
        let response = fixture.get("/v1.0/me?$bogus=1", token: fixture.token())
        #expect(response.status == .badRequest)
        #expect(response.bodyText == expectedErrorBody(code: "BadRequest", message: "The query parameter '$bogus' is not supported.", response: response))
        #expect(fixture.get("/v1.0/me?$top=2", token: fixture.token()).errorMessage == "The query parameter '$top' is not supported.")
    }

    @Test func unknownSegmentIsABadRequest() {
        let response = fixture.get("/v1.0/mee", token: fixture.token())
        #expect(response.status == .badRequest)
        #expect(response.bodyText == expectedErrorBody(code: "BadRequest", message: "Resource not found for the segment 'mee'.", response: response))
        #expect(fixture.get("/v1.0/me/drive", token: fixture.token()).errorMessage == "Resource not found for the segment 'drive'.")
    }

    @Test func personalAccountsShowTheirAddressAndCID() {
        let token = fixture.token(user: Demo.megan, tenant: Tenant.consumersTenantID, scopes: "User.Read")
        let me = fixture.get("/v1.0/me", token: token).json
        #expect(me["userPrincipalName"] as? String == "megan@outlook.com")
        #expect(me["id"] as? String == "66f33332eca7ea81")
        #expect(me["jobTitle"] is NSNull)
    }

    @Test func meNeedsAProfilePermission() {
        let response = fixture.get("/v1.0/me", token: fixture.token(scopes: "Calendars.Read Mail.Read"))
        #expect(response.status == .forbidden)
        #expect(response.bodyText == expectedErrorBody(code: "Authorization_RequestDenied", message: "Insufficient privileges to complete the operation.", response: response))
        for scope in ["User.ReadBasic.All", "user.read.all", "User.ReadWrite"] {
            #expect(fixture.get("/v1.0/me", token: fixture.token(scopes: scope)).status == .ok, "scope \(scope)")
        }
    }

    @Test func meWithAnAppTokenIsABadRequest() {
        let response = fixture.get("/v1.0/me", token: fixture.appToken(roles: ["User.Read.All"]))
        #expect(response.status == .badRequest)
        #expect(response.bodyText == expectedErrorBody(code: "BadRequest", message: "/me request is only valid with delegated authentication flow.", response: response))
    }

    @Test func meForADeletedUserIsNotFound() {
        let token = fixture.token()
        fixture.service.directory.withLock { $0.users.removeAll { $0.id == Demo.adele } }
        let response = fixture.get("/v1.0/me", token: token)
        #expect(response.status == .notFound)
        #expect(response.bodyText == expectedErrorBody(
            code: "Request_ResourceNotFound",
            message: "Resource '\(Demo.adele)' does not exist or one of its queried reference-property objects are not present.", response: response
        ))
    }

    @Test func usersByIDOrUPN() {
        let token = fixture.token(scopes: "User.ReadBasic.All")
        let byID = fixture.get("/v1.0/users/\(Demo.alex)", token: token)
        #expect(byID.json["displayName"] as? String == "Alex Wilber")
        #expect(byID.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users/$entity")
        let byUPN = fixture.get("/v1.0/users/Alex.Wilber@contoso.onmicrosoft.com?$select=id", token: token)
        #expect(byUPN.json["id"] as? String == Demo.alex)
        #expect(fixture.get("/v1.0/users('\(Demo.alex)')", token: token).json["surname"] as? String == "Wilber")
    }

    @Test func otherUsersNeedADirectoryPermission() {
        let response = fixture.get("/v1.0/users/\(Demo.alex)", token: fixture.token(scopes: "User.Read"))
        #expect(response.status == .forbidden)
        #expect(response.errorCode == "Authorization_RequestDenied")
        // Yourself by id needs no more than /me does.
        #expect(fixture.get("/v1.0/users/\(Demo.adele)", token: fixture.token(scopes: "User.Read")).status == .ok)
        #expect(fixture.get("/v1.0/users/\(Demo.alex)", token: fixture.appToken(roles: ["User.Read.All"])).status == .ok)
        #expect(fixture.get("/v1.0/users/\(Demo.alex)", token: fixture.appToken(roles: ["Mail.Read"])).status == .forbidden)
    }

    @Test func unknownAndForeignUsersAreNotFound() {
        let token = fixture.token(scopes: "User.Read.All")
        let response = fixture.get("/v1.0/users/nobody@contoso.onmicrosoft.com", token: token)
        #expect(response.status == .notFound)
        #expect(response.errorMessage == "Resource 'nobody@contoso.onmicrosoft.com' does not exist or one of its queried reference-property objects are not present.")
        // Megan lives in the consumers tenant: invisible from Contoso.
        #expect(fixture.get("/v1.0/users/\(Demo.megan)", token: token).status == .notFound)
    }

    @Test func userListPagesUntilExhausted() throws {
        let token = fixture.appToken(roles: ["User.Read.All"])
        var target: String? = "/v1.0/users?$top=1&$select=displayName"
        var names: [String] = []
        var pages = 0
        while let next = target, pages < 10 {
            let response = fixture.get(next, token: token)
            #expect(response.status == .ok)
            #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users(displayName)")
            names += response.values.compactMap { $0["displayName"] as? String }
            #expect(response.values.allSatisfy { $0.count == 1 })
            target = (response.json["@odata.nextLink"] as? String).map { link in
                #expect(link.hasPrefix("https://127.0.0.1:8443/v1.0/users?"))
                return String(link.dropFirst("https://127.0.0.1:8443".count))
            }
            pages += 1
        }
        #expect(names == ["Adele Vance", "Alex Wilber"])
        #expect(pages == 2)
    }

    @Test func userListFiltersAndOrders() {
        let token = fixture.token(scopes: "User.Read.All")
        let filtered = fixture.get("/v1.0/users?$filter=mail%20eq%20'ALEX.WILBER@contoso.onmicrosoft.com'", token: token)
        #expect(filtered.values.map { $0["id"] as? String } == [Demo.alex])
        let starts = fixture.get("/v1.0/users?$filter=startswith(displayName,'ad')", token: token)
        #expect(starts.values.map { $0["displayName"] as? String } == ["Adele Vance"])
        let ordered = fixture.get("/v1.0/users?$orderby=displayName%20desc&$select=displayName", token: token)
        #expect(ordered.values.map { $0["displayName"] as? String } == ["Alex Wilber", "Adele Vance"])
        let unsupported = fixture.get("/v1.0/users?$filter=accountEnabled%20ne%20true", token: token)
        #expect(unsupported.status == .badRequest)
        #expect(unsupported.errorCode == "Request_UnsupportedQuery")
        #expect(fixture.get("/v1.0/users?$top=1000", token: token).errorMessage == "Invalid page size specified: '1000'. Must be between 1 and 999 inclusive.")
        #expect(fixture.get("/v1.0/users", token: fixture.token(scopes: "User.Read")).status == .forbidden)
    }

    @Test func advancedQueriesNeedEventualConsistency() {
        let token = fixture.token(scopes: "User.Read.All")
        let target = "/v1.0/users?$search=%22displayName:wil%22&$count=true&$select=displayName"
        let response = fixture.get(target, token: token, headers: [("ConsistencyLevel", "eventual")])
        #expect(response.json["@odata.count"] as? Int == 1)
        #expect(response.values.compactMap { $0["displayName"] as? String } == ["Alex Wilber"])
        let either = fixture.get("/v1.0/users?$search=%22mail:adele%22%20OR%20%22surname:wil%22", token: token, headers: [("ConsistencyLevel", "eventual")])
        #expect(either.values.count == 2)
        let plain = fixture.get("/v1.0/users?$search=%22displayName:wil%22", token: token)
        #expect(plain.status == .badRequest)
        #expect(plain.errorMessage == "Request with $search query parameter only works through MSGraph with a special request header: 'ConsistencyLevel: eventual'")
        // Refusals name what they refuse, as recorded in Graph's advanced-query docs.
        #expect(fixture.get("/v1.0/users?$filter=endsWith(userPrincipalName,'x')", token: token).errorMessage?
            .hasPrefix("Operator 'endsWith' is not supported because the required parameters might be missing.") == true)
        #expect(fixture.get("/v1.0/users?$filter=createdDateTime%20eq%20'x'", token: token).errorMessage
            == "Unsupported or invalid query filter clause specified for property 'createdDateTime' of resource 'User'.")
        // Without eventual consistency `$count=true` is ignored; `/users/$count` is refused, and answered as text with it.
        let ignored = fixture.get("/v1.0/users?$count=true", token: token)
        #expect(ignored.status.code == 200 && ignored.json["@odata.count"] == nil)
        #expect(fixture.get("/v1.0/users/$count", token: token).errorMessage == "$count is not currently supported.")
        let counted = fixture.get("/v1.0/users/$count", token: token, headers: [("ConsistencyLevel", "eventual")])
        #expect(counted.status.code == 200 && counted.headers["Content-Type"] == "text/plain" && Int(counted.bodyText) ?? 0 > 0, "\(counted.bodyText)")
    }

    @Test func graphHostOwnsEveryPath() {
        #expect(fixture.get("/v1.0/me", token: fixture.token(), host: "graph.microsoft.com").status == .ok)
        let version = fixture.get("/v2.0/me", token: fixture.token(), host: "graph.microsoft.com:443")
        #expect(version.status == .badRequest)
        #expect(version.errorMessage == "Invalid version: v2.0")
    }

    @Test func otherPathsAreLeftToTheEntraHandler() {
        for target in ["/common/oauth2/v2.0/token", "/", "/v2.0/me", "/oidc/other"] {
            let request = HTTPRequest(method: "GET", target: target, headers: ["Host": "127.0.0.1:8443"])
            #expect(fixture.handler.handle(request) == nil, "\(target)")
        }
    }

    @Test func writesAreNotAllowed() {
        let response = fixture.get("/v1.0/me", token: fixture.token(), method: "PATCH")
        #expect(response.status.code == 405)
        #expect(response.errorCode == "Request_BadRequest")
    }

    @Test func userInfoReturnsTheOIDCClaims() {
        let response = fixture.get("/oidc/userinfo", token: fixture.token())
        #expect(response.status == .ok)
        #expect(response.bodyText == #"{"sub":"pairwise-6e7b1f23","name":"Adele Vance","family_name":"Vance","given_name":"Adele","picture":"https://graph.microsoft.com/v1.0/me/photo/$value","email":"adele.vance@contoso.onmicrosoft.com"}"#)
        #expect(fixture.get("/oidc/userinfo", token: nil).status.code == 401)
        #expect(fixture.get("/oidc/userinfo", token: fixture.appToken(roles: ["User.Read.All"])).status == .forbidden)
    }
}

@Suite("Mailbox settings and continuous access evaluation")
struct MailboxAndCAETests {
    let fixture = GraphFixture()

    @Test func tutorialSelectIncludesMailboxSettings() throws {
        // The Graph iOS tutorial asks for exactly this, then sends `Prefer: outlook.timezone` with the zone.
        let target = "/v1.0/me?$select=displayName,mail,mailboxSettings,userPrincipalName"
        let response = fixture.get(target, token: fixture.token(scopes: "User.Read MailboxSettings.Read Calendars.ReadWrite"))
        #expect(response.status == .ok)
        #expect(response.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users(displayName,mail,mailboxSettings,userPrincipalName)/$entity")
        let settings = try #require(response.json["mailboxSettings"] as? [String: Any])
        #expect(settings["timeZone"] as? String == "Pacific Standard Time")
        #expect((settings["language"] as? [String: String])?["locale"] == "en-US")
        let denied = fixture.get(target, token: fixture.token(scopes: "User.Read"))
        #expect(denied.status == .forbidden)
        #expect(denied.errorCode == "ErrorAccessDenied")
    }

    @Test func mailboxSettingsEndpoint() {
        let response = fixture.get("/v1.0/me/mailboxSettings?$select=timeZone", token: fixture.token(scopes: "MailboxSettings.Read"))
        #expect(response.bodyText == #"{"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#users('6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51')/mailboxSettings","timeZone":"Pacific Standard Time"}"#)
        #expect(fixture.get("/v1.0/me/mailboxSettings", token: fixture.token(scopes: "User.Read")).errorCode == "ErrorAccessDenied")
    }

    @Test func revokedSessionChallengesOnlyCAEClients() throws {
        let capable = fixture.token(capabilities: ["cp1"])
        let plain = fixture.token()
        fixture.clock.advance(by: 60)
        let revokedAt = fixture.clock.now()
        fixture.service.directory.withLock { directory in
            if let index = directory.users.firstIndex(where: { $0.id == Demo.adele }) { directory.users[index].tokensValidFrom = revokedAt }
        }
        let challenged = fixture.get("/v1.0/me", token: capable)
        #expect(challenged.status.code == 401)
        let header = try #require(challenged.headers["WWW-Authenticate"])
        let claims = try #require(header.split(separator: "\"").last.flatMap { Data(base64Encoded: String($0)) })
        #expect(String(decoding: claims, as: UTF8.self) == #"{"access_token":{"nbf":{"essential":true, "value":"1736337660"}}}"#)
        #expect(fixture.get("/v1.0/me", token: plain).status == .ok, "a client without cp1 keeps its token until it expires")
        #expect(fixture.get("/v1.0/me", token: fixture.token(capabilities: ["cp1"])).status == .ok, "a token issued after the revocation works")
    }

    @Test func disabledAccountChallengesCAEClients() {
        fixture.service.directory.withLock { directory in
            if let index = directory.users.firstIndex(where: { $0.id == Demo.adele }) { directory.users[index].accountEnabled = false }
        }
        let response = fixture.get("/v1.0/me", token: fixture.token(capabilities: ["cp1"]))
        #expect(response.status.code == 401)
        #expect(response.errorMessage == "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: UserDisabled")
    }
}

@Suite("Browsers (CORS)")
struct CrossOriginTests {
    let fixture = GraphFixture()

    @Test func preflightNeedsNoToken() {
        let response = fixture.get("/v1.0/me/calendarView", token: nil, headers: [
            ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "authorization,prefer"),
        ], method: "OPTIONS")
        #expect(response.status == .ok)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Headers"] == "authorization,prefer")
        #expect(response.headers["Access-Control-Allow-Methods"]?.contains("GET") == true)
    }

    @Test func answersAndErrorsAreReadableByPages() {
        let ok = fixture.get("/v1.0/me", token: fixture.token(), headers: [("Origin", "http://localhost:3000")])
        #expect(ok.headers["Access-Control-Allow-Origin"] == "*")
        #expect(ok.headers["Access-Control-Expose-Headers"]?.contains("WWW-Authenticate") == true)
        let denied = fixture.get("/v1.0/me", token: nil, headers: [("Origin", "http://localhost:3000")])
        #expect(denied.status.code == 401)
        #expect(denied.headers["Access-Control-Allow-Origin"] == "*")
        #expect(fixture.get("/v1.0/me", token: fixture.token()).headers["Access-Control-Allow-Origin"] == nil)
    }
}

/// What an External ID sign-up collected, as Graph returns it to the customer's app.
@Suite struct ExternalIDAttributeTests {
    static let custom = "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_loyaltyNumber"
    static let customer = "2f4e6a8c-0b1d-4e3f-8a5c-7e9b1d3f5a7c"

    @Test func selectReturnsTheAddressAndTheTenantsCustomAttributes() {
        var directory = Directory.embeddedDefault
        if let index = directory.tenants.firstIndex(where: { $0.id == Directory.woodgroveTenantID }) {
            directory.tenants[index].userFlow = ExternalUserFlow(attributes: [SignUpAttribute(name: "city"), SignUpAttribute(name: Self.custom, type: .int)])
        }
        var kai = DirectoryUser(id: Self.customer, tenantID: Directory.woodgroveTenantID, userPrincipalName: "\(Self.customer)@woodgrove.onmicrosoft.com",
                                displayName: "Kai", mail: "kai@woodgrove.example", password: "")
        kai.setAttributes(["city": "Redmond", Self.custom: "42"])
        directory.users.append(kai)
        let fixture = GraphFixture(directory: directory)
        let token = fixture.token(user: Self.customer, tenant: Directory.woodgroveTenantID)
        let selected = fixture.get("/v1.0/me?$select=displayName,city,postalCode,\(Self.custom)", token: token)
        #expect(selected.status == .ok)
        // An int attribute in its own JSON type, as Graph returns extension properties.
        #expect(selected.bodyText.contains(#""city":"Redmond","postalCode":null,"\#(Self.custom)":42"#), "\(selected.bodyText)")
        let unknown = fixture.get("/v1.0/me?$select=extension_ffffffffffffffffffffffffffffffff_other", token: token)
        #expect(unknown.status == .badRequest, "only the tenant's own extension attributes are properties")
    }
}
