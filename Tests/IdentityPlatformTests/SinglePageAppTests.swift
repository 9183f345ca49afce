import IdentityFixtures
import EntraHTTP
import ExchangeKernel
import Foundation
import Testing
@testable import IdentityPlatform

/// Redirect-URI platforms at the token endpoint: a single-page app's codes and refresh tokens are redeemed
/// by the browser (with `Origin`) and only so, a web or public client's never cross-origin, and a SPA's
/// refresh tokens end 24 hours after the sign-in however often used.
@Suite struct SinglePageAppTests {
    typealias F = TokenFixtures
    static let spaID = "77777777-7777-4777-8777-777777777777"
    static let spaURI = "http://localhost:3000"
    static let origin: HTTPHeaders = ["Origin": "http://localhost:3000"]

    static func service(strict: Bool = false) -> (IdentityService, VirtualClock) {
        var directory = F.directory
        directory.applications.append(Application(clientID: spaID, displayName: "Contoso SPA", spaRedirectURIs: [spaURI]))
        var options = IdentityOptions()
        options.strict = strict
        return F.service(options: options, directory: directory)
    }

    static func redeemSPA(_ service: IdentityService, headers: HTTPHeaders) -> HTTPResponse {
        F.issueCode(service, clientID: spaID, redirectURI: spaURI)
        return F.send(F.post(F.tokenPath, F.redeemForm(clientID: spaID, redirectURI: spaURI), headers: headers), to: service)
    }

    static func refresh(_ token: String, _ service: IdentityService, headers: HTTPHeaders) -> HTTPResponse {
        F.send(F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", spaID), ("refresh_token", token)], headers: headers), to: service)
    }

    @Test func aSPACodeIsRedeemedByTheBrowserAndOnlyByIt() throws {
        let (service, _) = Self.service()
        let fromServer = Self.redeemSPA(service, headers: [:])
        #expect(fromServer.status.code == 400 && F.errorCode(fromServer) == 9002327)
        #expect(F.json(fromServer)["error"] as? String == "invalid_request")
        #expect((F.json(fromServer)["error_description"] as? String)?.hasPrefix("AADSTS9002327: Tokens issued for the 'Single-Page Application' client-type may only be redeemed via cross-origin requests.") == true)

        let (fresh, _) = Self.service()
        let fromBrowser = Self.redeemSPA(fresh, headers: Self.origin)
        #expect(fromBrowser.status.code == 200, "\(fromBrowser.bodyText)")
        let token = try #require(F.json(fromBrowser)["refresh_token"] as? String)
        #expect(F.errorCode(Self.refresh(token, fresh, headers: [:])) == 9002327, "a SPA's refresh token from a server")
        #expect(Self.refresh(token, fresh, headers: Self.origin).status.code == 200)
    }

    @Test func aWebOrPublicClientCodeIsNeverRedeemedCrossOrigin() {
        let (service, _) = Self.service()
        F.issueCode(service)
        let response = F.send(F.post(F.tokenPath, F.redeemForm(), headers: Self.origin), to: service)
        #expect(response.status.code == 400 && F.errorCode(response) == 9002326)
        #expect((F.json(response)["error_description"] as? String)?.hasPrefix(
            "AADSTS9002326: Cross-origin token redemption is permitted only for the 'Single-Page Application' client-type. Request origin: 'http://localhost:3000'.") == true)
        F.issueCode(service, code: "second")
        #expect(F.send(F.post(F.tokenPath, F.redeemForm(code: "second")), to: service).status.code == 200, "the same app from its own process")
    }

    @Test func aSPARefreshTokenEndsADayAfterTheSignInHoweverOftenUsed() throws {
        let (service, clock) = Self.service()
        var token = try #require(F.json(Self.redeemSPA(service, headers: Self.origin))["refresh_token"] as? String)
        for _ in 0..<3 {
            clock.advance(by: 7 * 3600)
            let refreshed = Self.refresh(token, service, headers: Self.origin)
            #expect(refreshed.status.code == 200)
            token = try #require(F.json(refreshed)["refresh_token"] as? String)
        }
        clock.advance(by: 3 * 3600 + 1)   // 24 h after the redemption, 3 h after the last use
        let expired = Self.refresh(token, service, headers: Self.origin)
        #expect(expired.status.code == 400 && F.errorCode(expired) == 700084)
        #expect((F.json(expired)["error_description"] as? String)?.contains("fixed, limited lifetime of 1.00:00:00") == true)
    }

    @Test func anUnregisteredRedirectURIHasNoPlatformInLenientModeAndIsAPublicClientsInStrict() {
        let lenientID = "88888888-8888-4888-8888-888888888888"
        for (strict, expected) in [(false, 200), (true, 400)] {
            let (service, _) = Self.service(strict: strict)
            service.directory.withLock { $0.applications.append(Application(clientID: lenientID, displayName: "No redirect URIs")) }
            F.issueCode(service, clientID: lenientID, redirectURI: "http://localhost:5173")
            let response = F.send(F.post(F.tokenPath, F.redeemForm(clientID: lenientID, redirectURI: "http://localhost:5173"), headers: Self.origin), to: service)
            #expect(response.status.code == expected, "strict \(strict): \(response.bodyText)")
            if strict { #expect(F.errorCode(response) == 9002326) }
        }
    }
}
