import IdentityFixtures
@testable import Journal
import LocatedJSON
import EntraHTTP
import Foundation
import Testing
@testable import ExchangeKernel
@testable import IdentityPlatform

@Suite struct JournalTests {
    typealias F = TokenFixtures

    /// The identity handler under the journal, plus a stand-in for any other module.
    func stack(limits: RequestJournal.Limits = .init()) -> (ExchangeStack, RequestJournal, IdentityService) {
        let (service, _) = F.service()
        let journal = RequestJournal(limits: limits)
        let stack = JournalStack.make(journal: journal, service: service) { _ in
            var headers: HTTPHeaders = [:]
            headers.add("Set-Cookie", "graph=secret-cookie-value; Path=/")
            return HTTPResponse(status: .ok, headers: headers, text: #"{"displayName":"Adele","password":"hunter2"}"#, contentType: "application/json")
        }
        return (stack, journal, service)
    }

    func read(_ responder: ExchangeStack, _ target: String = "/_fakeentra/journal", context: ConnectionFacts = F.context) -> (HTTPResponse, [[String: Any]]) {
        let response = responder.respond(to: F.get(target), context: context)
        return (response, (F.json(response)["entries"] as? [[String: Any]]) ?? [])
    }

    @Test func tokenExchangesAreRecordedWithSecretsRedacted() throws {
        let (responder, _, service) = stack()
        F.issueCode(service, clientID: F.webAppID, redirectURI: "https://app.example/callback")
        let request = F.post(F.tokenPath, F.redeemForm(clientID: F.webAppID, redirectURI: "https://app.example/callback") + [("client_secret", F.webSecret)], headers: ["Authorization": "Bearer abc.def.ghi", "Cookie": "esctx=session-secret; other=1"])
        let tokenResponse = responder.respond(to: request, context: F.context)
        let (_, entries) = read(responder)
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry["kind"] as? String == "token" && entry["method"] as? String == "POST" && entry["status"] as? Int == tokenResponse.status.code)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self)
        #expect(tokenResponse.status.code == 200)
        let secrets = ["test-code", F.webSecret, "verifier-0123456789", "abc.def.ghi", "session-secret"]
            + ["access_token", "id_token", "refresh_token"].compactMap { F.json(tokenResponse)[$0] as? String }
        for secret in secrets { #expect(!text.contains(secret), "\(secret.prefix(20)) leaked") }
        let requestBody = try #require((entry["request"] as? [String: Any])?["body"] as? [String: Any])
        #expect(requestBody["client_secret"] as? String == "[redacted 20 chars]")
        #expect((requestBody["code"] as? String)?.hasPrefix("[redacted 9 chars sha256:") == true)
        #expect(requestBody["grant_type"] as? String == "authorization_code")
        let responseBody = try #require((entry["response"] as? [String: Any])?["body"] as? [String: Any])
        #expect((responseBody["access_token"] as? String)?.hasPrefix("[redacted ") == true)
        #expect(responseBody["token_type"] as? String == "Bearer")
        let headers = try #require((entry["request"] as? [String: Any])?["headers"] as? [String: Any])
        #expect((headers["Authorization"] as? String)?.hasPrefix("Bearer [redacted 11 chars sha256:") == true)
        #expect((headers["Cookie"] as? String)?.hasPrefix("esctx=[redacted") == true)
    }

    /// The journal's refusals use the control API's one error shape.
    @Test func journalErrorsUseTheControlAPIShape() {
        let (responder, _, _) = stack()
        var put = F.get("/_fakeentra/journal")
        put.method = "PUT"
        for (request, context) in [(F.get("/_fakeentra/journal?format=xml"), F.context), (F.get("/_fakeentra/journal?since=yesterday"), F.context),
                                   (put, F.context), (F.get("/_fakeentra/journal"), ConnectionFacts(remoteAddress: "10.0.0.9", isSecure: true, localPort: 443))] {
            let response = responder.respond(to: request, context: context)
            let error = F.json(response)["error"] as? [String: Any]
            #expect(response.status.code >= 400)
            #expect(error?["code"] is String && error?["message"] is String, "\(request.target): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    @Test func sameSecretGivesSameHashSoReadersCanCorrelate() {
        #expect(Redaction.redact("abc", name: "code") == Redaction.redact("abc", name: "refresh_token"))
        #expect(Redaction.redact("abc", name: "code") != Redaction.redact("abd", name: "code"))
        #expect(Redaction.redactURL("https://app/cb?code=xyz&state=s1#id_token=t&x=1") == "https://app/cb?code=\(FormCoding.encodeComponent(Redaction.redact("xyz", name: "code")))&state=s1#id_token=\(FormCoding.encodeComponent(Redaction.redact("t", name: "id_token")))&x=1")
        #expect(Redaction.redactHeader(name: "Set-Cookie", value: "a=b; Path=/") == "a=\(Redaction.redact("b", name: "token")); Path=/")
    }

    @Test func otherModulesLandInTheJournalToo() throws {
        let (responder, _, _) = stack()
        _ = responder.respond(to: F.get("/v1.0/me"), context: F.context)
        let (_, entries) = read(responder)
        let entry = try #require(entries.first)
        #expect(entry["kind"] as? String == "graph")
        let body = try #require((entry["response"] as? [String: Any])?["body"] as? [String: Any])
        #expect(body["password"] as? String == "[redacted 7 chars]" && body["displayName"] as? String == "Adele")
        let cookie = try #require(((entry["response"] as? [String: Any])?["headers"] as? [String: Any])?["Set-Cookie"] as? String)
        #expect(!cookie.contains("secret-cookie-value"))
    }

    /// Graph's and Resource Manager's error objects name the error in `code`: the journal keeps it; a `code`
    /// elsewhere is an authorization code and stays redacted.
    @Test func errorObjectsKeepTheirCodes() throws {
        let (service, _) = F.service()
        let journal = RequestJournal()
        let responder = JournalStack.make(journal: journal, service: service) { _ in
            HTTPResponse(status: HTTPStatus(401), text: #"{"error":{"code":"InvalidAuthenticationToken","message":"Access token is empty.","details":[{"code":"ExpiredAuthenticationToken"}]},"code":"0.AAAA-an-authorization-code"}"#,
                         contentType: "application/json")
        }
        _ = responder.respond(to: F.get("/v1.0/me"), context: F.context)
        let (_, entries) = read(responder)
        let body = try #require(((entries.first?["response"] as? [String: Any])?["body"] as? [String: Any]))
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["code"] as? String == "InvalidAuthenticationToken")
        #expect((error["details"] as? [[String: Any]])?.first?["code"] as? String == "ExpiredAuthenticationToken")
        #expect((body["code"] as? String)?.hasPrefix("[redacted") == true)
    }

    /// What strict JSON refuses and lenient readers take (a repeated member, a trailing comma) is shown
    /// redacted all the same, members sorted by name; so is JSON sent as `text/plain`.
    @Test func bodiesOnlyALenientReaderTakesAreRedacted() {
        let repeated = #"{"z": 1, "client_secret": "s3cr3t", "client_secret": "0ther",}"#
        #expect(JournalEntry.describeBody(Array(repeated.utf8), contentType: "application/json").text == #"{"client_secret":"[redacted 5 chars]","z":1}"#)
        let plain = JournalEntry.redactPlainText(#"{"refresh_token": "abc", "a": [1,],}"#)
        #expect(plain == #"{"a":[1],"refresh_token":"\#(Redaction.redact("abc", name: "refresh_token"))"}"#)
    }

    /// A repeated form parameter is one member holding the array of its values, so that the journal stays
    /// JSON a strict reader takes; the entry's pairs keep every value, in the order sent.
    @Test func aRepeatedFormParameterIsAnArrayOfItsValues() {
        let body = Array("scope=openid&client_secret=s3cr3t&scope=profile&grant_type=client_credentials".utf8)
        let (text, form) = JournalEntry.describeBody(body, contentType: "application/x-www-form-urlencoded")
        #expect(text == #"{"scope":["openid","profile"],"client_secret":"[redacted 6 chars]","grant_type":"client_credentials"}"#)
        #expect(LocatedJSON.parse(body: text.utf8) != nil, "strict JSON")
        #expect(form.map(\.0) == ["scope", "client_secret", "scope", "grant_type"])
        #expect(form.map(\.1) == ["openid", "[redacted 6 chars]", "profile", "client_credentials"])
    }

    /// A redirect's error is read from its query, or from its fragment (`response_mode=fragment`, as MSAL.js asks).
    @Test func redirectErrorsAreReadFromTheQueryOrTheFragment() {
        #expect(Receipt.RedirectError(location: "https://app/cb?error=access_denied&error_subcode=cancel&state=s#x")
                    == Receipt.RedirectError(error: "access_denied", subcode: "cancel"))
        #expect(Receipt.RedirectError(location: "https://app/cb#error=interaction_required&error_description=AADSTS50076%3A%20MFA&state=s")
                    == Receipt.RedirectError(error: "interaction_required", errorDescription: "AADSTS50076: MFA"))
        #expect(Receipt.RedirectError(location: "https://app/cb?code=abc&state=s") == nil)
        #expect(Receipt.RedirectError(location: "https://app/cb#code=abc&state=s") == nil)
    }

    @Test func boundedByCountAndBytes() {
        let byCount = RequestJournal(limits: .init(maximumEntries: 3, maximumBytes: 1 << 20))
        for i in 0..<5 { byCount.record(entry(path: "/p\(i)")) }
        #expect(byCount.entries().map(\.path) == ["/p2", "/p3", "/p4"])
        #expect(byCount.droppedCount == 2)
        let big = entry(path: "/big", body: String(repeating: "x", count: 1000))
        let byBytes = RequestJournal(limits: .init(maximumEntries: 100, maximumBytes: big.approximateSize * 2 + 10))
        for _ in 0..<5 { byBytes.record(big) }
        #expect(byBytes.entries().count == 2)
        #expect(byBytes.totalBytes <= big.approximateSize * 2 + 10)
        #expect(byBytes.entries().map(\.id) == [4, 5])
    }

    /// Many times the limit: evicted slots are dropped from the front in batches; ids, counts and bytes stay
    /// exact through every batch.
    @Test func evictionStaysExactAcrossManyBatches() {
        let journal = RequestJournal(limits: .init(maximumEntries: 3, maximumBytes: 1 << 20))
        for i in 1...50 {
            journal.record(entry(path: "/p\(i)", body: String(repeating: "x", count: i)))
            let kept = journal.entries()
            #expect(kept.map(\.id) == Array(max(1, i - 2)...i))
            #expect(journal.droppedCount == max(0, i - 3))
            #expect(journal.totalBytes == kept.map(\.approximateSize).reduce(0, +))
        }
        #expect(journal.entries(matching: .init(limit: 2)).map(\.path) == ["/p49", "/p50"])
        journal.clear()
        #expect(journal.entries().isEmpty && journal.totalBytes == 0 && journal.droppedCount == 0)
        journal.record(entry(path: "/after"))
        #expect(journal.entries().map(\.id) == [51])
    }

    @Test func filters() {
        let journal = RequestJournal()
        journal.record(entry(path: "/a/token", status: 200))
        journal.record(entry(path: "/a/token", status: 400))
        journal.record(entry(path: "/v1.0/me", status: 401))
        #expect(journal.entries(matching: .init(path: "TOKEN")).count == 2)
        #expect(journal.entries(matching: .init(status: "4xx")).map(\.id) == [2, 3])
        #expect(journal.entries(matching: .init(status: "400")).map(\.id) == [2])
        #expect(journal.entries(matching: .init(sinceID: 1)).map(\.id) == [2, 3])
        #expect(journal.entries(matching: .init(limit: 1)).map(\.id) == [3])
    }

    @Test func httpInterfaceIsLoopbackOnly() {
        let (responder, journal, _) = stack()
        _ = responder.respond(to: F.get("/common/v2.0/.well-known/openid-configuration"), context: F.context)
        _ = responder.respond(to: F.get("/v1.0/me"), context: F.context)
        let (remote, _) = read(responder, context: ConnectionFacts(remoteAddress: "192.168.1.20", isSecure: true, localPort: 443))
        #expect(remote.status.code == 403)
        let (_, filtered) = read(responder, "/_fakeentra/journal?path=well-known&limit=5")
        #expect(filtered.count == 1 && filtered.first?["kind"] as? String == "openid_configuration")
        #expect(read(responder, "/_fakeentra/journal?kind=graph&method=get").1.count == 1)
        #expect(read(responder, "/_fakeentra/journal?kind=token").1.isEmpty)
        #expect(read(responder, "/_fakeentra/journal?since=yesterday").0.status.code == 400)
        let deleted = responder.respond(to: HTTPRequest(method: "DELETE", target: "/_fakeentra/journal", headers: ["Host": "x"]), context: F.context)
        #expect(deleted.status.code == 204 && journal.entries().isEmpty)
    }

    func entry(path: String, status: Int = 200, body: String = "null") -> JournalEntry {
        JournalEntry(id: 0, time: F.start, method: "GET", path: path, query: [], status: status, kind: "other", durationMilliseconds: 1,
                     requestHeaders: [], responseHeaders: [], requestBody: body == "null" ? "null" : JSONValue.quoted(body), responseBody: "null")
    }
}
