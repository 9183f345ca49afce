import IdentityFixtures
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

/// Inputs the real service refuses, answered as it answers them.
@Suite struct RefusedInputTests {
    typealias F = TokenFixtures

    static let password: [(String, String)] = [("grant_type", "password"), ("username", "adele.vance@contoso.onmicrosoft.com"),
                                               ("password", Directory.demoPassword), ("scope", "User.Read")]

    @Test func aParameterSentTwiceIs9000411() {
        let (service, _) = F.service()
        let response = F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID)] + Self.password + [("scope", "Mail.Read")]), to: service)
        #expect(response.status.code == 400)
        #expect(F.errorCode(response) == 9000411)
        #expect((F.json(response)["error_description"] as? String)?.hasPrefix("AADSTS9000411: The request is not properly formatted. The parameter 'scope' is duplicated.") == true)
    }

    /// The repeated name is the first one an earlier name equals once both are lower-cased (case,
    /// canonically equivalent spellings such as `é` and `e` with a combining accent, `ſ` that lower-cases
    /// to itself), checked against a plain pairwise reference: every list of up to three names drawn from
    /// the pieces, and lists past the 16 names that are compared pairwise, with the pieces placed late.
    @Test func theRepeatedParameterIsTheFirstALowercasedComparisonFinds() {
        let pieces = ["scope", "Scope", "SCOPE", "client_id", "é", "e\u{301}", "É", "grant_type", "ſ", "S", "s", "a", "A"]
        func reference(_ names: [String]) -> String? {
            for (index, name) in names.enumerated() where names[..<index].contains(where: { $0.lowercased() == name.lowercased() }) { return name }
            return nil
        }
        var lists: [[String]] = [[]]
        for length in 1...3 { lists += lists.filter { $0.count == length - 1 }.flatMap { list in pieces.map { list + [$0] } } }
        for count in [16, 17, 24] {
            for (first, second) in [(0, 1), (3, 15), (15, 16), (16, count - 1), (count - 2, count - 1)] where first < second && second < count {
                for (a, b) in [(0, 1), (0, 2), (4, 5), (6, 4), (8, 9), (3, 7)] {
                    var names = (0..<count).map { "p\($0)" }
                    names[first] = pieces[a]
                    names[second] = pieces[b]
                    lists.append(names)
                }
            }
        }
        var differing: [[String]] = []
        for names in lists where ParameterScreen.firstRepeatedName(names.map { (name: $0, value: "") }) != reference(names) { differing.append(names) }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
        #expect(ParameterScreen.firstRepeatedName([("a", ""), ("b", ""), ("A", "")]) == "A")
        #expect(ParameterScreen.firstRepeatedName([("é", ""), ("e\u{301}", "")]) == "e\u{301}")
    }

    /// RFC 8707's `resource` on v2.0 as the service answers it since 2026: an Application ID URI of the
    /// scopes' app, character for character, changes nothing; anything else is invalid_target, AADSTS9010010.
    @Test func resourceOnV2MustNameTheScopesAppAndStillWorksOnV1() {
        let (service, _) = F.service()
        func token(_ resource: String, scope: String) -> HTTPResponse {
            // A client lenient mode stands in for: no consent to record first.
            F.send(F.post(F.tokenPath, [("client_id", "0f0f0f0f-1111-4222-8333-555555555555"), ("resource", resource), ("grant_type", "password"), ("scope", scope),
                                        ("username", "adele.vance@contoso.onmicrosoft.com"), ("password", Directory.demoPassword)]), to: service)
        }
        let matching = token("https://graph.microsoft.com", scope: "openid User.Read")
        #expect(matching.status.code == 200, "\(F.json(matching))")
        #expect(F.claims(F.json(matching)["access_token"] as? String)?["aud"] as? String == Resource.graphAppID, "aud stays the resource's")
        for (resource, scope) in [("https://graph.microsoft.com/", "openid User.Read"), (Resource.graphAppID, "User.Read"),
                                  ("api://\(F.apiAppID)", "User.Read"), ("https://graph.microsoft.com", "openid profile offline_access")] {
            let refused = token(resource, scope: scope)
            #expect(refused.status.code == 400 && F.errorCode(refused) == 9010010, "\(resource) with \(scope)")
            #expect(F.json(refused)["error"] as? String == "invalid_target")
            #expect((F.json(refused)["error_description"] as? String)?.hasPrefix("AADSTS9010010: The resource parameter provided in the request doesn't match with the requested scopes.") == true)
        }
        let v1 = F.send(F.post("/\(F.contoso)/oauth2/token", [("client_id", F.nativeAppID), ("resource", "https://graph.microsoft.com"), ("grant_type", "password"),
                                                              ("username", "adele.vance@contoso.onmicrosoft.com"), ("password", Directory.demoPassword)]), to: service)
        #expect(v1.status.code == 200, "\(F.json(v1))")
    }

    @Test func oversizedOrControlCharacterClientIDsAreNoApp() {
        let (service, _) = F.service()
        for clientID in [String(repeating: "a", count: 200_000), "abc\u{0}def", "has space"] {
            let response = F.send(F.post(F.tokenPath, [("client_id", clientID)] + Self.password), to: service)
            #expect(F.errorCode(response) == 700016, "\(clientID.prefix(10).debugDescription)")
            #expect(response.body.count < 4096, "the answer does not grow with the id")
            #expect(!response.body.contains(0), "no raw NUL")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("\\u0000"), "no NUL escaped either")
        }
        let unknownGUID = F.send(F.post(F.tokenPath, [("client_id", "0f0f0f0f-1111-4222-8333-444444444444")] + Self.password), to: service)
        #expect(unknownGUID.status.code == 200, "lenient mode still stands in for an unknown GUID client")
    }

    @Test func basicCredentialsNamingAnotherClientAreRefused() {
        let (service, _) = F.service()
        let basic = "Basic " + Data("\(F.webAppID):\(F.webSecret)".utf8).base64EncodedString()
        let mismatch = F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID), ("grant_type", "client_credentials"), ("scope", "https://graph.microsoft.com/.default")],
                                     headers: ["Authorization": basic]), to: service)
        #expect(mismatch.status.code == 400)
        #expect(F.errorCode(mismatch) == 9002313)
        let agreeing = F.send(F.post(F.tokenPath, [("client_id", F.webAppID), ("grant_type", "client_credentials"), ("scope", "https://graph.microsoft.com/.default")],
                                     headers: ["Authorization": basic]), to: service)
        #expect(agreeing.status.code == 200, "\(F.json(agreeing))")
    }

    /// The authorize endpoint refuses a duplicated parameter on its error page, before any page of the
    /// flow; a `resource` that does not match the scopes goes back to the app, before the sign-in.
    @Test func authorizeRefusesDuplicatesOnTheErrorPageAndAMismatchedResourceToTheApp() {
        let (service, _) = F.service()
        let base = "/\(F.contoso)/oauth2/v2.0/authorize?client_id=\(F.nativeAppID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback"
        let duplicated = F.send(F.get(base + "&scope=openid&SCOPE=User.Read"), to: service)
        #expect(duplicated.status.code == 400)
        #expect(String(decoding: duplicated.body, as: UTF8.self).contains("AADSTS9000411"))
        #expect(duplicated.headers["Location"] == nil, "nothing is sent back to an app the request did not name unambiguously")
        let resource = F.send(F.get(base + "&scope=openid&state=s1&resource=https%3A%2F%2Fmcp.contoso.example"), to: service)
        let location = resource.headers["Location"] ?? ""
        #expect(resource.status.code == 302 && location.hasPrefix("http://localhost/callback?error=invalid_target&"), "\(location)")
        #expect(location.contains("AADSTS9010010") && location.contains("state=s1"), "\(location)")
        let matching = F.send(F.get(base + "&scope=openid%20User.Read&resource=https%3A%2F%2Fgraph.microsoft.com"), to: service)
        #expect(matching.status.code == 200, "a matching resource changes nothing")
        let v1 = F.send(F.get("/\(F.contoso)/oauth2/authorize?client_id=\(F.nativeAppID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback&resource=https%3A%2F%2Fgraph.microsoft.com"), to: service)
        #expect(v1.status.code == 200, "v1.0 takes resource")
        let fine = F.send(F.get(base + "&scope=openid"), to: service)
        #expect(fine.status.code == 200)
    }
}
