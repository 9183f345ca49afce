import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

/// The shipped External ID scenarios, each bound to the whole server and driven with the native
/// authentication API's requests as MSAL for iOS/macOS sends them.
@Suite struct ShippedExternalIDScenarioTests {
    static let app = "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19"
    static let jordan = "jordan@woodgrove.example"

    func bound(_ name: String) throws -> Harness {
        let scenario = try #require(ShippedScenarioTests.library[name], "no shipped scenario \(name)")
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: name, to: .server)
        return harness
    }

    func post(_ harness: Harness, _ path: String, _ form: [(String, String)]) -> (status: Int, body: [String: Any]) {
        let response = harness.send(Harness.post("/woodgrove.onmicrosoft.com/\(path)", [("client_id", Self.app)] + form))
        return (response.status.code, Harness.body(response))
    }

    /// The bound world's outbox: where its codes go.
    func lastCode(_ harness: Harness, to address: String) throws -> String {
        try #require(harness.engine.world(binding: "b1")?.service.outbox.messages(to: address).last?.code)
    }

    /// initiate → challenge (oob): the continuation token a code goes with.
    func codeSignIn(_ harness: Harness, _ username: String) -> String {
        let started = post(harness, "oauth2/v2.0/initiate", [("username", username), ("challenge_type", "oob redirect")])
        let challenged = post(harness, "oauth2/v2.0/challenge", [("continuation_token", started.body["continuation_token"] as? String ?? ""),
                                                                 ("challenge_type", "oob redirect")])
        return challenged.body["continuation_token"] as? String ?? ""
    }

    func signUpWithCode(_ harness: Harness, _ address: String) throws {
        let started = post(harness, "signup/v1.0/start", [("username", address), ("challenge_type", "oob redirect"), ("attributes", #"{"displayName": "C"}"#)])
        let challenged = post(harness, "signup/v1.0/challenge", [("continuation_token", started.body["continuation_token"] as? String ?? ""),
                                                                 ("challenge_type", "oob redirect")])
        _ = post(harness, "signup/v1.0/continue", [("continuation_token", challenged.body["continuation_token"] as? String ?? ""),
                                                  ("grant_type", "oob"), ("oob", try lastCode(harness, to: address))])
    }

    @Test func codeExpiredThenANewCodeSignsIn() throws {
        let harness = try bound("external-id-code-expired")
        let address = "code-user@woodgrove.example"
        let signUpStarted = post(harness, "signup/v1.0/start", [("username", address), ("challenge_type", "oob redirect"), ("attributes", #"{"displayName": "C"}"#)])
        let signUpChallenge = post(harness, "signup/v1.0/challenge", [("continuation_token", signUpStarted.body["continuation_token"] as? String ?? ""),
                                                                      ("challenge_type", "oob redirect")])
        let signUpToken = signUpChallenge.body["continuation_token"] as? String ?? ""
        let expired = post(harness, "signup/v1.0/continue", [("continuation_token", signUpToken), ("grant_type", "oob"), ("oob", try lastCode(harness, to: address))])
        #expect(expired.status == 400 && expired.body["suberror"] as? String == "invalid_oob_value" && (expired.body["error_codes"] as? [Int])?.first == 50181)
        let resent = post(harness, "signup/v1.0/challenge", [("continuation_token", signUpToken), ("challenge_type", "oob redirect")])
        let created = post(harness, "signup/v1.0/continue", [("continuation_token", resent.body["continuation_token"] as? String ?? ""),
                                                            ("grant_type", "oob"), ("oob", try lastCode(harness, to: address))])
        #expect(created.status == 200)
        let token = codeSignIn(harness, address)
        let stale = harness.send(Harness.post("/woodgrove.onmicrosoft.com/oauth2/v2.0/token", [("client_id", Self.app), ("grant_type", "oob"),
            ("continuation_token", token), ("oob", try lastCode(harness, to: address)), ("scope", "openid offline_access")]))
        #expect(Harness.body(stale)["suberror"] as? String == "invalid_oob_value", "the first sign-in code too")
        let retried = post(harness, "oauth2/v2.0/challenge", [("continuation_token", token), ("challenge_type", "oob redirect")])
        let signedIn = harness.send(Harness.post("/woodgrove.onmicrosoft.com/oauth2/v2.0/token", [("client_id", Self.app), ("grant_type", "oob"),
            ("continuation_token", retried.body["continuation_token"] as? String ?? ""), ("oob", try lastCode(harness, to: address)), ("scope", "openid offline_access")]))
        #expect(signedIn.status.code == 200, "\(signedIn.bodyText)")
    }

    @Test func codeRequestsAfterTheFirstAreThrottled() throws {
        let harness = try bound("external-id-code-requests-throttled")
        let address = "throttled@woodgrove.example"
        let started = post(harness, "signup/v1.0/start", [("username", address), ("challenge_type", "oob redirect")])
        let token = started.body["continuation_token"] as? String ?? ""
        let first = post(harness, "signup/v1.0/challenge", [("continuation_token", token), ("challenge_type", "oob redirect")])
        #expect(first.status == 200 && first.body["challenge_type"] as? String == "oob")
        let again = harness.send(Harness.post("/woodgrove.onmicrosoft.com/signup/v1.0/challenge", [("client_id", Self.app), ("continuation_token", token), ("challenge_type", "oob redirect")]))
        #expect(again.status.code == 429 && again.headers["Retry-After"] == "60")
    }

    @Test func passwordResetRequiredThenTheResetSignsIn() throws {
        let harness = try bound("external-id-password-reset-required")
        let started = post(harness, "oauth2/v2.0/initiate", [("username", Self.jordan), ("challenge_type", "oob password redirect")])
        let challenged = post(harness, "oauth2/v2.0/challenge", [("continuation_token", started.body["continuation_token"] as? String ?? ""),
                                                                 ("challenge_type", "oob password redirect")])
        let refused = harness.send(Harness.post("/woodgrove.onmicrosoft.com/oauth2/v2.0/token", [("client_id", Self.app), ("grant_type", "password"),
            ("continuation_token", challenged.body["continuation_token"] as? String ?? ""), ("password", Directory.demoPassword), ("scope", "openid")]))
        #expect(refused.status.code == 400 && Harness.body(refused)["error"] as? String == "invalid_request" && (Harness.body(refused)["error_codes"] as? [Int])?.first == 50142)
        let reset = post(harness, "resetpassword/v1.0/start", [("username", Self.jordan), ("challenge_type", "oob redirect")])
        let resetChallenge = post(harness, "resetpassword/v1.0/challenge", [("continuation_token", reset.body["continuation_token"] as? String ?? ""), ("challenge_type", "oob redirect")])
        let verified = post(harness, "resetpassword/v1.0/continue", [("continuation_token", resetChallenge.body["continuation_token"] as? String ?? ""),
                                                                     ("grant_type", "oob"), ("oob", try lastCode(harness, to: Self.jordan))])
        let submitted = post(harness, "resetpassword/v1.0/submit", [("continuation_token", verified.body["continuation_token"] as? String ?? ""), ("new_password", "N3w!password")])
        let polled = post(harness, "resetpassword/v1.0/poll_completion", [("continuation_token", submitted.body["continuation_token"] as? String ?? "")])
        #expect(polled.body["status"] as? String == "succeeded")
        let signedIn = harness.send(Harness.post("/woodgrove.onmicrosoft.com/oauth2/v2.0/token", [("client_id", Self.app), ("grant_type", "continuation_token"),
            ("continuation_token", polled.body["continuation_token"] as? String ?? ""), ("username", Self.jordan), ("scope", "openid")]))
        #expect(signedIn.status.code == 200, "\(signedIn.bodyText)")
    }

    @Test func anAttributeIsRefusedOnceThenTheCorrectedSignUpStarts() throws {
        let harness = try bound("external-id-sign-up-attribute-refused")
        let form: [(String, String)] = [("username", "attr@woodgrove.example"), ("challenge_type", "oob redirect"), ("attributes", #"{"displayName": "x"}"#)]
        let refused = post(harness, "signup/v1.0/start", form)
        #expect(refused.status == 400 && refused.body["suberror"] as? String == "attribute_validation_failed")
        #expect((refused.body["invalid_attributes"] as? [[String: Any]])?.first?["name"] as? String == "displayName")
        #expect(post(harness, "signup/v1.0/start", form).status == 200)
    }

    @Test func nativeStartsAreRedirectedAndTheBrowserStillSignsIn() throws {
        let harness = try bound("external-id-redirect-challenge")
        for (path, username) in [("oauth2/v2.0/initiate", Self.jordan), ("signup/v1.0/start", "new@woodgrove.example"), ("resetpassword/v1.0/start", Self.jordan)] {
            let answer = post(harness, path, [("username", username), ("challenge_type", "oob password redirect")])
            #expect(answer.status == 200 && answer.body["challenge_type"] as? String == "redirect" && answer.body["redirect_reason"] is String, "\(path)")
        }
        let authorize = harness.send(Harness.get("/woodgrove.onmicrosoft.com/oauth2/v2.0/authorize?client_id=\(Self.app)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost&scope=openid"))
        // The harness signs a user in without pages (auto-login): the browser's way ends with a code.
        #expect(authorize.status.code == 302 && Harness.redirectParameters(authorize)["code"] != nil, "\(authorize.headers)")
    }

    // MARK: Native authentication V2

    /// A V2 step: JSON to the link the last answer gave.
    func step(_ harness: Harness, _ href: Any?, _ members: [String: String]) -> (status: Int, body: [String: Any]) {
        let body = String(decoding: try! JSONSerialization.data(withJSONObject: members), as: UTF8.self)
        let response = harness.send(Harness.json("POST", href as? String ?? "", body))
        return (response.status.code, Harness.body(response))
    }

    /// authorize-challenge → the reset's start → its email method's challenge: a code is mailed.
    func v2ResetCodeSent(_ harness: Harness) -> [String: Any] {
        let entry = post(harness, "oauth2/v2.0/authorize-challenge", [])
        let start = step(harness, entry.body["reset_password"], ["continuationToken": entry.body["continuation_token"] as? String ?? "", "username": Self.jordan])
        let methods = (start.body["_embedded"] as? [String: Any])?["methods"] as? [[String: Any]] ?? []
        let link = (methods.first?["_links"] as? [String: Any])?["challenge"] as? [String: Any]
        return step(harness, link?["href"], ["continuationToken": start.body["continuationToken"] as? String ?? ""]).body
    }

    static func href(_ body: [String: Any], _ relation: String) -> Any? { ((body["_links"] as? [String: Any])?[relation] as? [String: Any])?["href"] }

    /// In V2 the expired code is refused by the verify step, in the step's nested shape.
    @Test func codeExpiredInV2ThenANewCodeVerifies() throws {
        let harness = try bound("external-id-code-expired")
        let sent = v2ResetCodeSent(harness)
        let token = sent["continuationToken"] as? String ?? ""
        let expired = step(harness, Self.href(sent, "verify"), ["continuationToken": token, "otp": try lastCode(harness, to: Self.jordan)])
        let error = expired.body["error"] as? [String: Any]
        #expect(expired.status == 400 && error?["code"] as? String == "invalidGrant")
        #expect((error?["innerError"] as? [String: Any])?["code"] as? String == "invalidOneTimeCode")
        #expect((error?["message"] as? String)?.hasPrefix("AADSTS50181: ") == true && error?["traceId"] is String)
        let resent = step(harness, Self.href(sent, "resend"), ["continuationToken": token])
        let verified = step(harness, Self.href(resent.body, "verify"), ["continuationToken": resent.body["continuationToken"] as? String ?? "",
                                                                       "otp": try lastCode(harness, to: Self.jordan)])
        #expect(verified.status == 200 && verified.body["action"] as? String == "update")
    }

    /// Each V2 journey's start, after the authorization challenge, answers the state all three MSALs read
    /// as "browser required".
    @Test func nativeStartsAreRedirectedInV2() throws {
        let harness = try bound("external-id-redirect-challenge")
        for (journey, username) in [("sign_in", Self.jordan), ("sign_up", ""), ("reset_password", Self.jordan)] {
            let entry = post(harness, "oauth2/v2.0/authorize-challenge", [])
            var members = ["continuationToken": entry.body["continuation_token"] as? String ?? ""]
            if !username.isEmpty { members["username"] = username }
            let start = step(harness, entry.body[journey], members)
            #expect(start.status == 200 && start.body["state"] as? String == "webFallbackRequired", "\(journey): \(start.body)")
            // The token MSAL for iOS's validator requires of a step's answer, and which leads nowhere but the browser.
            let token = start.body["continuationToken"] as? String ?? ""
            #expect(!token.isEmpty)
            let onward = harness.send(Harness.post("/woodgrove.onmicrosoft.com/oauth2/v2.0/authorize-challenge", [("continuation_token", token)]))
            #expect(onward.status.code == 400, "\(journey): a journey sent to the browser gets no code: \(onward.bodyText)")
        }
    }

    /// A hand-off to the browser answers only where the service makes one: a rule matching every native
    /// request leaves a password reset's poll and V2's authorization challenge to answer as usual, its
    /// firing unspent.
    @Test func theBrowserHandOffAnswersOnlyStartsChallengesAndV2Steps() throws {
        let scenario = try Harness.scenario(#"{"name": "hand-off", "description": "d", "rules": [{"match": {"endpoint": "nativeauth"}, "action": {"browserRequired": {"reason": "r"}}, "times": 1}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "hand-off", to: .server)
        let entry = post(harness, "oauth2/v2.0/authorize-challenge", [])
        #expect(entry.status == 401 && entry.body["continuation_token"] is String, "\(entry.body)")
        let polled = post(harness, "resetpassword/v1.0/poll_completion", [("continuation_token", "none")])
        #expect(polled.status == 400 && polled.body["challenge_type"] == nil, "\(polled.body)")
        let started = post(harness, "signup/v1.0/start", [("username", "hand@woodgrove.example"), ("challenge_type", "oob redirect")])
        #expect(started.status == 200 && started.body["challenge_type"] as? String == "redirect" && started.body["redirect_reason"] as? String == "r")
        let again = post(harness, "signup/v1.0/start", [("username", "hand@woodgrove.example"), ("challenge_type", "oob redirect")])
        #expect(again.body["continuation_token"] is String, "the rule fired once, at the start")
    }

    /// V2 submits a sign-up's attributes to their own step: the first submission is refused in the step's
    /// nested shape, naming the attribute; the corrected one goes on to the mailed code.
    @Test func anAttributeIsRefusedOnceInV2() throws {
        let harness = try bound("external-id-sign-up-attribute-refused")
        let entry = post(harness, "oauth2/v2.0/authorize-challenge", [])
        let start = step(harness, entry.body["sign_up"], ["continuationToken": entry.body["continuation_token"] as? String ?? ""])
        #expect(start.body["action"] as? String == "collectAttributes")
        let submit = Self.href(start.body, "submitAttributes") as? String ?? ""
        func submitted(_ name: String) -> (status: Int, body: [String: Any]) {
            let body = #"{"continuationToken": "\#(start.body["continuationToken"] as? String ?? "")", "attributes": {"email": "attr-v2@woodgrove.example", "password": "P@ssword1!-x", "displayName": "\#(name)"}}"#
            let response = harness.send(Harness.json("POST", submit, body))
            return (response.status.code, Harness.body(response))
        }
        let refused = submitted("x")
        let error = refused.body["error"] as? [String: Any]
        let inner = error?["innerError"] as? [String: Any]
        #expect(refused.status == 400 && error?["code"] as? String == "invalidRequest" && (error?["message"] as? String)?.hasPrefix("AADSTS1002027: ") == true)
        #expect(inner?["code"] as? String == "attributeValidationError")
        #expect(((inner?["details"] as? [[String: Any]])?.first?["attributeIds"] as? [String]) == ["displayName"])
        let corrected = submitted("Attribute Tester")
        #expect(corrected.status == 200 && corrected.body["action"] as? String == "verify", "\(corrected.body)")
    }

    @Test func codeRequestsAfterTheFirstAreThrottledInV2() throws {
        let harness = try bound("external-id-code-requests-throttled")
        let sent = v2ResetCodeSent(harness)
        #expect(sent["action"] as? String == "verify")
        let again = harness.send(Harness.json("POST", Self.href(sent, "resend") as? String ?? "", #"{"continuationToken": "\#(sent["continuationToken"] as? String ?? "")"}"#))
        #expect(again.status.code == 429 && again.headers["Retry-After"] == "60")
    }
}
