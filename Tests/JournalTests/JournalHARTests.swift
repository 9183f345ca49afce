import IdentityFixtures
@testable import Journal
import EntraHTTP
import Foundation
import Testing
@testable import ExchangeKernel
@testable import IdentityPlatform

@Suite struct JournalHARTests {
    typealias F = TokenFixtures

    /// A journaling identity stack whose journal holds one redeemed code and one refused refresh.
    func journaledExchanges() -> (ExchangeStack, token: HTTPResponse) {
        let (service, _) = F.service()
        let journal = RequestJournal()
        let responder = JournalStack.make(journal: journal, service: service, serverVersion: "9.8.7")
        F.issueCode(service, clientID: F.webAppID, redirectURI: "https://app.example/callback")
        let token = responder.respond(to: F.post(F.tokenPath, F.redeemForm(clientID: F.webAppID, redirectURI: "https://app.example/callback") + [("client_secret", F.webSecret)]), context: F.context)
        _ = responder.respond(to: F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", "not-a-refresh-token")]), context: F.context)
        return (responder, token)
    }

    func har(_ responder: ExchangeStack, _ target: String = "/_fakeentra/journal?format=har", context: ConnectionFacts = F.context) throws -> (HTTPResponse, log: [String: Any]) {
        let response = responder.respond(to: F.get(target), context: context)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (response, try #require(root["log"] as? [String: Any]))
    }

    @Test func exportsEveryEntryAsHAR12() throws {
        let (responder, token) = journaledExchanges()
        #expect(token.status.code == 200)
        let (response, log) = try har(responder)
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? [String: Any])
        #expect(creator["name"] as? String == "FakeEntra" && creator["version"] as? String == "9.8.7")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 2)

        let redeem = entries[0]
        #expect((redeem["startedDateTime"] as? String)?.hasSuffix("Z") == true)
        #expect(redeem["time"] is NSNumber)
        let timings = try #require(redeem["timings"] as? [String: Any])
        #expect((timings["wait"] as? NSNumber)?.doubleValue == (redeem["time"] as? NSNumber)?.doubleValue)
        let request = try #require(redeem["request"] as? [String: Any])
        #expect(request["method"] as? String == "POST")
        #expect(request["url"] as? String == "https://login.fake.test" + F.tokenPath)
        #expect(request["httpVersion"] as? String == "HTTP/1.1")
        #expect((request["cookies"] as? [Any])?.isEmpty == true)
        #expect(request["queryString"] is [Any])
        let headerNames = (request["headers"] as? [[String: String]] ?? []).compactMap { $0["name"] }
        #expect(headerNames.contains("Host") && headerNames.contains("Content-Type"))
        let postData = try #require(request["postData"] as? [String: Any])
        #expect(postData["mimeType"] as? String == "application/x-www-form-urlencoded")
        let names = (postData["params"] as? [[String: String]] ?? []).compactMap { $0["name"] }
        #expect(names == F.redeemForm(clientID: F.webAppID, redirectURI: "https://app.example/callback").map(\.0) + ["client_secret"], "sent order kept")
        let params = Dictionary(uniqueKeysWithValues: (postData["params"] as? [[String: String]] ?? []).map { ($0["name"]!, $0["value"]!) })
        #expect(params["grant_type"] == "authorization_code" && params["client_id"] == F.webAppID)
        #expect(params["client_secret"] == "[redacted 20 chars]")
        let text = try #require(postData["text"] as? String)
        #expect(FormParameters(decoding: text)["grant_type"] == "authorization_code")
        #expect(FormParameters(decoding: text)["client_secret"] == "[redacted 20 chars]")

        let answer = try #require(redeem["response"] as? [String: Any])
        #expect(answer["status"] as? Int == 200 && answer["statusText"] as? String == "OK")
        let content = try #require(answer["content"] as? [String: Any])
        #expect((content["mimeType"] as? String)?.hasPrefix("application/json") == true)
        let body = try #require(content["text"] as? String)
        #expect(content["size"] as? Int == body.utf8.count)
        let tokenJSON = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(tokenJSON["token_type"] as? String == "Bearer")
        #expect((tokenJSON["access_token"] as? String)?.hasPrefix("[redacted ") == true)

        let refused = try #require(entries[1]["response"] as? [String: Any])
        #expect(refused["status"] as? Int == 400 && refused["statusText"] as? String == "Bad Request")
        let refusedBody = try #require((refused["content"] as? [String: Any])?["text"] as? String)
        #expect(refusedBody.contains("invalid_grant"))
    }

    @Test func noSecretOrTokenLeaksIntoTheExport() throws {
        let (responder, token) = journaledExchanges()
        let text = String(decoding: responder.respond(to: F.get("/_fakeentra/journal?format=har"), context: F.context).body, as: UTF8.self)
        let secrets = [F.webSecret, "test-code", "not-a-refresh-token"] + ["access_token", "id_token", "refresh_token"].compactMap { F.json(token)[$0] as? String }
        for secret in secrets { #expect(!text.contains(secret), "\(secret.prefix(20)) leaked") }
    }

    @Test func filtersApplyAndTheSchemeFollowsTheListener() throws {
        let (responder, _) = journaledExchanges()
        let plain = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: false, localPort: 8080)
        let (_, log) = try har(responder, "/_fakeentra/journal?format=HAR&status=4xx", context: plain)
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect((entries.first?["request"] as? [String: Any])?["url"] as? String == "http://login.fake.test" + F.tokenPath)
    }

    @Test func entriesWithoutHostUseTheReadersHostAndBodilessRequestsHaveNoPostData() throws {
        let entry = JournalEntry(id: 7, time: Date(timeIntervalSince1970: 0), method: "GET", path: "/common/discovery/instance",
                                 query: [("api-version", "1.1")], status: 429, kind: "instance_discovery", durationMilliseconds: 1500,
                                 requestHeaders: [], responseHeaders: [("Retry-After", "30")], requestBody: "null", responseBody: "null")
        let text = JournalHAR.render([entry], scheme: "https", defaultHost: "127.0.0.1:8443", creatorVersion: "1")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let har = try #require(((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        #expect(har["startedDateTime"] as? String == "1970-01-01T00:00:00.000Z")
        #expect((har["time"] as? NSNumber)?.doubleValue == 1500)
        let request = try #require(har["request"] as? [String: Any])
        #expect(request["url"] as? String == "https://127.0.0.1:8443/common/discovery/instance?api-version=1.1")
        #expect(request["postData"] == nil)
        #expect((request["queryString"] as? [[String: String]])?.first == ["name": "api-version", "value": "1.1"])
        let response = try #require(har["response"] as? [String: Any])
        #expect(response["statusText"] as? String == "Too Many Requests")
        #expect((response["headers"] as? [[String: String]])?.first == ["name": "Retry-After", "value": "30"])
        #expect((response["content"] as? [String: Any])?["size"] as? Int == 0)
    }

    /// A form's parameters are exported from the entry's pairs: a repeated one as often as it was sent, in its place.
    @Test func aRepeatedFormParameterIsExportedAsSent() throws {
        let sent = "scope=openid&grant_type=client_credentials&scope=profile"
        let (text, form) = JournalEntry.describeBody(Array(sent.utf8), contentType: "application/x-www-form-urlencoded")
        let entry = JournalEntry(id: 1, time: Date(timeIntervalSince1970: 0), method: "POST", path: "/common/oauth2/v2.0/token", query: [],
                                 status: 200, kind: "token", durationMilliseconds: 1,
                                 requestHeaders: [("Content-Type", "application/x-www-form-urlencoded")], responseHeaders: [],
                                 requestBody: text, responseBody: "null", requestForm: form)
        let har = JournalHAR.render([entry], scheme: "https", defaultHost: "login.fake.test", creatorVersion: "1")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(har.utf8)) as? [String: Any])
        let request = try #require((((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)?["request"] as? [String: Any])
        let postData = try #require(request["postData"] as? [String: Any])
        let params = try #require(postData["params"] as? [[String: String]])
        #expect(params.map { "\($0["name"] ?? "")=\($0["value"] ?? "")" } == ["scope=openid", "grant_type=client_credentials", "scope=profile"])
        #expect(postData["text"] as? String == sent)
        #expect(request["bodySize"] as? Int == sent.utf8.count)
    }

    @Test func anUnknownFormatIsRefused() {
        let (responder, _) = journaledExchanges()
        let response = responder.respond(to: F.get("/_fakeentra/journal?format=xml"), context: F.context)
        #expect(response.status.code == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("format must be json or har"))
    }
}
