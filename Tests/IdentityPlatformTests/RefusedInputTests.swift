import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

/// Issue 12, defect 10: inputs the real service refuses, answered as it answers them.
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

    /// The repeated name is found as a set of lower-cased names found it: case, canonically equivalent
    /// spellings (`é` and `e` with a combining accent), and lists past the pairwise comparison's 16.
    @Test func theRepeatedParameterIsTheOneASetOfLowercasedNamesFinds() {
        let pieces = ["scope", "Scope", "SCOPE", "client_id", "é", "e\u{301}", "É", "grant_type", "ſ", "S", "s", "a", "A"]
        var generator = SystemRandomNumberGenerator()
        var differing: [[String]] = []
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...24, using: &generator)
            let names = (0..<count).map { index in pieces.randomElement(using: &generator)! + (Bool.random(using: &generator) ? "" : String(index)) }
            var seen = Set<String>()
            let expected = names.first { !seen.insert($0.lowercased()).inserted }
            if ParameterScreen.firstRepeatedName(names.map { (name: $0, value: "") }) != expected { differing.append(names) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
        #expect(ParameterScreen.firstRepeatedName([("a", ""), ("b", ""), ("A", "")]) == "A")
        #expect(ParameterScreen.firstRepeatedName([("é", ""), ("e\u{301}", "")]) == "e\u{301}")
    }

    @Test func resourceOnV2Is901002AndStillWorksOnV1() {
        let (service, _) = F.service()
        let v2 = F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID), ("resource", "https://graph.microsoft.com")] + Self.password), to: service)
        #expect(F.errorCode(v2) == 901002)
        #expect(F.json(v2)["error"] as? String == "invalid_request")
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

    /// The authorize endpoint refuses the same inputs on its error page, before any page of the flow.
    @Test func authorizeRefusesDuplicatesAndResourceOnV2WithTheErrorPage() {
        let (service, _) = F.service()
        let base = "/\(F.contoso)/oauth2/v2.0/authorize?client_id=\(F.nativeAppID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback"
        let duplicated = F.send(F.get(base + "&scope=openid&SCOPE=User.Read"), to: service)
        #expect(duplicated.status.code == 400)
        #expect(String(decoding: duplicated.body, as: UTF8.self).contains("AADSTS9000411"))
        #expect(duplicated.headers["Location"] == nil, "nothing is sent back to an app the request did not name unambiguously")
        let resource = F.send(F.get(base + "&scope=openid&resource=https%3A%2F%2Fgraph.microsoft.com"), to: service)
        #expect(resource.status.code == 400)
        #expect(String(decoding: resource.body, as: UTF8.self).contains("AADSTS901002"))
        let v1 = F.send(F.get("/\(F.contoso)/oauth2/authorize?client_id=\(F.nativeAppID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback&resource=https%3A%2F%2Fgraph.microsoft.com"), to: service)
        #expect(v1.status.code == 200, "v1.0 takes resource")
        let fine = F.send(F.get(base + "&scope=openid"), to: service)
        #expect(fine.status.code == 200)
    }
}
