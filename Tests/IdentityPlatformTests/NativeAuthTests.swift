import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

/// External ID's native authentication API, driven with the requests MSAL for iOS/macOS's native-auth
/// controllers send (MSALNativeAuthSignInController, MSALNativeAuthSignUpController), each answer read the
/// way MSAL reads it: 200 with `continuation_token` (or `challenge_type`), 400 with `error`, `suberror`
/// and the first of `error_codes`.
@Suite struct NativeAuthTests {
    typealias F = TokenFixtures
    static let tenant = "woodgrove.onmicrosoft.com"
    static let host = "woodgrove.ciamlogin.com"
    static let app = "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19"
    static let jordan = "jordan@woodgrove.example"

    static func service() -> (IdentityService, VirtualClock) { F.service(directory: .embeddedDefault) }

    static func post(_ path: String, _ form: [(String, String)], to service: IdentityService) -> (status: Int, body: [String: Any]) {
        var headers: HTTPHeaders = [:]
        headers.set("Host", host)
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        let request = HTTPRequest(method: "POST", target: "/\(tenant)/\(path)", headers: headers, body: Array(FormParameters(form).encoded.utf8))
        let response = F.send(request, to: service)
        return (response.status.code, F.json(response))
    }

    static func initiate(_ username: String, types: String = "oob password redirect", service: IdentityService) -> (status: Int, body: [String: Any]) {
        post("oauth2/v2.0/initiate", [("client_id", app), ("username", username), ("challenge_type", types)], to: service)
    }

    static func challenge(_ token: Any?, path: String = "oauth2/v2.0/challenge", types: String = "oob password redirect", service: IdentityService) -> (status: Int, body: [String: Any]) {
        post(path, [("client_id", app), ("continuation_token", token as? String ?? ""), ("challenge_type", types)], to: service)
    }

    static func token(_ form: [(String, String)], service: IdentityService) -> (status: Int, body: [String: Any]) {
        post("oauth2/v2.0/token", [("client_id", app), ("scope", "openid profile offline_access"), ("client_info", "true")] + form, to: service)
    }

    static func firstCode(_ body: [String: Any]) -> Int? { (body["error_codes"] as? [Int])?.first }

    /// A sign-up without a password: start with the display name, the code mailed, the code given back.
    static func signUpWithACode(_ address: String, service: IdentityService) throws -> (status: Int, body: [String: Any]) {
        let started = post("signup/v1.0/start", [("client_id", app), ("username", address), ("challenge_type", "oob redirect"),
                                                 ("attributes", #"{"displayName": "Customer"}"#)], to: service)
        let challenged = challenge(started.body["continuation_token"], path: "signup/v1.0/challenge", types: "oob redirect", service: service)
        let code = try #require(service.outbox.messages(to: address).last?.code)
        return post("signup/v1.0/continue", [("client_id", app), ("continuation_token", challenged.body["continuation_token"] as? String ?? ""),
                                              ("grant_type", "oob"), ("oob", code)], to: service)
    }

    /// A flow keeps only the challenge types and capabilities the API acts on: an anonymous start naming a
    /// megabyte of capabilities keeps a few words, for the flow's lifetime; an unknown challenge type is
    /// refused in the words MSAL.js recognises.
    @Test func aFlowKeepsOnlyTheChallengeTypesAndCapabilitiesItKnows() throws {
        let (service, clock) = Self.service()
        let junk = (0..<50_000).map { "x\($0)" }.joined(separator: " ")
        for path in ["signup/v1.0/start", "oauth2/v2.0/initiate", "resetpassword/v1.0/start"] {
            let address = path.hasPrefix("signup") ? "new.customer@woodgrove.example" : Self.jordan
            let refused = Self.post(path, [("client_id", Self.app), ("username", address), ("challenge_type", "oob password redirect " + junk)], to: service)
            #expect(refused.status == 400 && refused.body["error"] as? String == "invalid_request", "\(path): \(refused.body)")
            #expect((refused.body["error_description"] as? String)?.contains("The challenge_type list parameter contains an unsupported challenge type") == true)
            let started = Self.post(path, [("client_id", Self.app), ("username", address), ("challenge_type", "OOB password redirect"),
                                           ("capabilities", "mfa_required " + junk), ("capability", junk)], to: service)
            #expect(started.status == 200, "\(path): \(started.body)")
            let token = try #require(started.body["continuation_token"] as? String)
            guard let tenantID = service.currentDirectory.tenant(matching: Self.tenant)?.id,
                  let flow = try? service.nativeAuthFlows.flow(presented: token, by: .v1(tenantID: tenantID, clientID: Self.app), now: clock.now()) else {
                Issue.record("\(path): no flow")
                continue
            }
            #expect(flow.challengeTypes == ["oob", "password", "redirect"], "\(path)")
            #expect(flow.capabilities == ["mfa_required"], "\(path)")
        }
    }

    /// 256 characters at most, counted as the service counts them (UTF-16): a few "characters" of combining
    /// marks are tens of thousands of code points, kept in the flow and run past the banned list.
    @Test func aPasswordIsMeasuredInCodeUnits() throws {
        let (service, _) = Self.service()
        let marks = "Aa1!bcde" + String(repeating: "\u{0301}", count: 25_000)
        let started = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", "marks@woodgrove.example"), ("challenge_type", "oob password redirect"),
                                                      ("password", marks)], to: service)
        #expect(started.status == 400 && started.body["suberror"] as? String == "password_too_long", "\(started.body)")
        let longest = "Aa1!" + String(repeating: "q", count: 252)
        let accepted = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", "longest@woodgrove.example"), ("challenge_type", "oob password redirect"),
                                                       ("password", longest)], to: service)
        #expect(accepted.status == 200, "\(accepted.body)")
    }

    @Test func signInWithPasswordGivesTokensInExternalIDsIssuerAndTheyRefresh() throws {
        let (service, _) = Self.service()
        let started = Self.initiate(Self.jordan, service: service)
        #expect(started.status == 200 && started.body["continuation_token"] is String)
        let challenged = Self.challenge(started.body["continuation_token"], service: service)
        #expect(challenged.status == 200 && challenged.body["challenge_type"] as? String == "password")
        let tokens = Self.token([("grant_type", "password"), ("username", Self.jordan), ("password", Directory.demoPassword),
                                 ("continuation_token", challenged.body["continuation_token"] as? String ?? ""),
                                 ("challenge_type", "password redirect")], service: service)
        #expect(tokens.status == 200)
        #expect(tokens.body["client_info"] is String, "MSAL for iOS refuses a token answer without client_info")
        let id = try #require(F.claims(tokens.body["id_token"] as? String))
        let tid = Directory.woodgroveTenantID
        #expect(id["iss"] as? String == "https://\(tid).ciamlogin.com/\(tid)/v2.0")
        #expect(id["tid"] as? String == tid && id["preferred_username"] as? String == Self.jordan)
        let refreshed = Self.token([("grant_type", "refresh_token"), ("refresh_token", tokens.body["refresh_token"] as? String ?? "")], service: service)
        #expect(refreshed.status == 200 && refreshed.body["access_token"] is String)
    }

    @Test func aWrongPasswordIsInvalidCredentialsAndTheTokenStaysUsable() {
        let (service, _) = Self.service()
        let challenged = Self.challenge(Self.initiate(Self.jordan, service: service).body["continuation_token"], service: service)
        let token = challenged.body["continuation_token"] as? String ?? ""
        let wrong = Self.token([("grant_type", "password"), ("password", "nope"), ("continuation_token", token)], service: service)
        #expect(wrong.status == 400 && wrong.body["error"] as? String == "invalid_grant" && Self.firstCode(wrong.body) == 50126)
        let right = Self.token([("grant_type", "password"), ("password", Directory.demoPassword), ("continuation_token", token)], service: service)
        #expect(right.status == 200)
        let again = Self.token([("grant_type", "password"), ("password", Directory.demoPassword), ("continuation_token", token)], service: service)
        #expect(again.status == 400 && again.body["error"] as? String == "invalid_request" && Self.firstCode(again.body) == 55200,
                "a finished flow takes its tokens back")
    }

    @Test func initiateRefusesWhatTheReferenceRefuses() {
        let (service, _) = Self.service()
        let unknown = Self.initiate("nobody@woodgrove.example", service: service)
        #expect(unknown.status == 400 && unknown.body["error"] as? String == "user_not_found" && Self.firstCode(unknown.body) == 50034)
        let noRedirect = Self.initiate(Self.jordan, types: "oob password", service: service)
        #expect(noRedirect.status == 400 && noRedirect.body["error"] as? String == "invalid_request" && Self.firstCode(noRedirect.body) == 901007)
        let redirect = Self.challenge(Self.initiate(Self.jordan, types: "oob redirect", service: service).body["continuation_token"],
                                      types: "oob redirect", service: service)
        #expect(redirect.status == 200 && redirect.body["challenge_type"] as? String == "redirect",
                "a password user of an app that can only show codes goes to the browser")
    }

    @Test func continuationTokensExpireAfterTenMinutes() {
        let (service, clock) = Self.service()
        let token = Self.initiate(Self.jordan, service: service).body["continuation_token"]
        clock.advance(by: 601)
        let late = Self.challenge(token, service: service)
        #expect(late.status == 400 && late.body["error"] as? String == "expired_token" && Self.firstCode(late.body) == 55112)
    }

    @Test func signUpWithACodeAPasswordAndAttributesThenSignsIn() throws {
        let (service, _) = Self.service()
        let address = "kai@woodgrove.example"
        let weak = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", address), ("password", "password"),
                                                   ("challenge_type", "oob password redirect")], to: service)
        #expect(weak.status == 400 && weak.body["suberror"] as? String == "password_too_weak")
        let started = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", address), ("password", "Str0ng!pass"),
                                                      ("challenge_type", "oob password redirect")], to: service)
        #expect(started.status == 200)
        let challenged = Self.challenge(started.body["continuation_token"], path: "signup/v1.0/challenge", service: service)
        #expect(challenged.body["challenge_type"] as? String == "oob" && challenged.body["code_length"] as? Int == 8)
        #expect(challenged.body["challenge_target_label"] as? String == "k**@w********.e******")
        let mailed = try #require(service.outbox.messages(to: address).last)
        let token = challenged.body["continuation_token"] as? String ?? ""
        let wrongCode = Self.post("signup/v1.0/continue", [("client_id", Self.app), ("continuation_token", token), ("grant_type", "oob"), ("oob", "00000000")], to: service)
        #expect(wrongCode.status == 400 && wrongCode.body["suberror"] as? String == "invalid_oob_value" && Self.firstCode(wrongCode.body) == 50181)
        let verified = Self.post("signup/v1.0/continue", [("client_id", Self.app), ("continuation_token", token), ("grant_type", "oob"), ("oob", mailed.code)], to: service)
        #expect(verified.status == 400 && verified.body["error"] as? String == "attributes_required" && Self.firstCode(verified.body) == 55106)
        #expect((verified.body["required_attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["displayName"])
        let done = Self.post("signup/v1.0/continue", [("client_id", Self.app), ("continuation_token", verified.body["continuation_token"] as? String ?? ""),
                                                      ("grant_type", "attributes"), ("attributes", #"{"displayName": "Kai Carter"}"#)], to: service)
        #expect(done.status == 200)
        let tokens = Self.token([("grant_type", "continuation_token"), ("username", address),
                                 ("continuation_token", done.body["continuation_token"] as? String ?? "")], service: service)
        #expect(tokens.status == 200)
        #expect(F.claims(tokens.body["id_token"] as? String)?["name"] as? String == "Kai Carter")
        let taken = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", address), ("challenge_type", "oob redirect")], to: service)
        #expect(taken.body["error"] as? String == "user_already_exists" && Self.firstCode(taken.body) == 1003037)
    }

    @Test func aCodeSignUpAndACodeSignInNeedNoPassword() throws {
        let (service, _) = Self.service()
        let address = "sam@woodgrove.example"
        let done = try Self.signUpWithACode(address, service: service)
        #expect(done.status == 200 && done.body["continuation_token"] is String)
        // Later: sign in with a code; asking again mails a new one and the old one stops working.
        let signIn = Self.initiate(address, types: "oob redirect", service: service)
        let first = Self.challenge(signIn.body["continuation_token"], types: "oob redirect", service: service)
        let firstCode = try #require(service.outbox.messages(to: address).last?.code)
        let resent = Self.challenge(first.body["continuation_token"], types: "oob redirect", service: service)
        let secondCode = try #require(service.outbox.messages(to: address).last?.code)
        let token = resent.body["continuation_token"] as? String ?? ""
        if firstCode != secondCode {
            let stale = Self.token([("grant_type", "oob"), ("oob", firstCode), ("continuation_token", token)], service: service)
            #expect(stale.body["suberror"] as? String == "invalid_oob_value")
        }
        let signedIn = Self.token([("grant_type", "oob"), ("oob", secondCode), ("continuation_token", token)], service: service)
        #expect(signedIn.status == 200 && signedIn.body["id_token"] is String)
    }

    @Test func passwordResetWithAMailedCodeThenSignsInAndEndsOlderRefreshTokens() throws {
        let (service, clock) = Self.service()
        let earlier = Self.token([("grant_type", "password"), ("password", Directory.demoPassword),
                                  ("continuation_token", Self.challenge(Self.initiate(Self.jordan, service: service).body["continuation_token"], service: service)
                                      .body["continuation_token"] as? String ?? "")], service: service)
        clock.advance(by: 5)
        let started = Self.post("resetpassword/v1.0/start", [("client_id", Self.app), ("username", Self.jordan), ("challenge_type", "oob redirect")], to: service)
        #expect(started.status == 200)
        let challenged = Self.challenge(started.body["continuation_token"], path: "resetpassword/v1.0/challenge", types: "oob redirect", service: service)
        #expect(challenged.body["challenge_type"] as? String == "oob")
        let code = try #require(service.outbox.messages(to: Self.jordan).last?.code)
        let verified = Self.post("resetpassword/v1.0/continue", [("client_id", Self.app), ("continuation_token", challenged.body["continuation_token"] as? String ?? ""),
                                                                  ("grant_type", "oob"), ("oob", code)], to: service)
        #expect(verified.status == 200 && verified.body["expires_in"] as? Int == 600)
        let token = verified.body["continuation_token"] as? String ?? ""
        let same = Self.post("resetpassword/v1.0/submit", [("client_id", Self.app), ("continuation_token", token), ("new_password", Directory.demoPassword)], to: service)
        #expect(same.body["suberror"] as? String == "password_recently_used")
        let short = Self.post("resetpassword/v1.0/submit", [("client_id", Self.app), ("continuation_token", token), ("new_password", "Ab1!")], to: service)
        #expect(short.body["suberror"] as? String == "password_too_short")
        let submitted = Self.post("resetpassword/v1.0/submit", [("client_id", Self.app), ("continuation_token", token), ("new_password", "N3w!password")], to: service)
        #expect(submitted.status == 200 && submitted.body["poll_interval"] as? Int == 2)
        let polled = Self.post("resetpassword/v1.0/poll_completion", [("client_id", Self.app), ("continuation_token", submitted.body["continuation_token"] as? String ?? "")], to: service)
        #expect(polled.body["status"] as? String == "succeeded")
        let signedIn = Self.token([("grant_type", "continuation_token"), ("username", Self.jordan),
                                   ("continuation_token", polled.body["continuation_token"] as? String ?? "")], service: service)
        #expect(signedIn.status == 200)
        let stale = Self.token([("grant_type", "refresh_token"), ("refresh_token", earlier.body["refresh_token"] as? String ?? "")], service: service)
        #expect(stale.status == 400 && Self.firstCode(stale.body) == 50173, "a reset password ends the refresh tokens issued before it")
    }

    @Test func aPasswordlessCustomerCannotResetAPassword() throws {
        let (service, _) = Self.service()
        let address = "otp-only@woodgrove.example"
        #expect(try Self.signUpWithACode(address, service: service).status == 200)
        let reset = Self.post("resetpassword/v1.0/start", [("client_id", Self.app), ("username", address), ("challenge_type", "oob redirect")], to: service)
        #expect(reset.status == 400 && reset.body["error"] as? String == "invalid_request" && Self.firstCode(reset.body) == 500222)
    }

    @Test func onlyExternalTenantsServeTheAPI() {
        let (service, _) = Self.service()
        var headers: HTTPHeaders = [:]
        headers.set("Host", "login.fake.test")
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        let request = HTTPRequest(method: "POST", target: "/contoso.onmicrosoft.com/oauth2/v2.0/initiate", headers: headers,
                                  body: Array(FormParameters([("client_id", Self.app), ("username", "adele.vance@contoso.onmicrosoft.com"), ("challenge_type", "password redirect")]).encoded.utf8))
        #expect(F.send(request, to: service).status.code == 404)
        let grant = F.send(F.post("/contoso.onmicrosoft.com/oauth2/v2.0/token", [("client_id", Self.app), ("grant_type", "continuation_token"),
                                                                                 ("continuation_token", "x"), ("scope", "openid")]), to: service)
        #expect(F.json(grant)["error"] as? String == "unsupported_grant_type")
    }

    @Test func theDiscoveryDocumentOnACIAMLoginHostNamesTheTenantsIssuer() {
        let (service, _) = Self.service()
        var headers: HTTPHeaders = [:]
        headers.set("Host", Self.host)
        let tid = Directory.woodgroveTenantID
        let response = F.send(HTTPRequest(method: "GET", target: "/\(Self.tenant)/v2.0/.well-known/openid-configuration", headers: headers), to: service)
        let document = F.json(response)
        #expect(document["issuer"] as? String == "https://\(tid).ciamlogin.com/\(tid)/v2.0")
        #expect(document["token_endpoint"] as? String == "https://\(Self.host)/\(tid)/oauth2/v2.0/token")
    }

    static func requireMFA(of address: String, registered: Bool, in service: IdentityService) {
        service.directory.withLock { directory in
            guard let index = directory.users.firstIndex(where: { $0.answers(to: address) }) else { return }
            directory.users[index].mfaRequired = true
            directory.users[index].mfaRegistered = registered
        }
    }

    /// initiate (with `capabilities`) → challenge (password) → token with the password.
    static func passwordSignIn(capabilities: String?, service: IdentityService) -> (status: Int, body: [String: Any]) {
        let started = post("oauth2/v2.0/initiate", [("client_id", app), ("username", jordan), ("challenge_type", "oob password redirect")]
                           + (capabilities.map { [("capabilities", $0)] } ?? []), to: service)
        let challenged = challenge(started.body["continuation_token"], service: service)
        return token([("grant_type", "password"), ("password", Directory.demoPassword),
                      ("continuation_token", challenged.body["continuation_token"] as? String ?? "")], service: service)
    }

    @Test func multifactorAuthenticationWithTheMfaRequiredCapability() throws {
        let (service, _) = Self.service()
        Self.requireMFA(of: Self.jordan, registered: true, in: service)
        let redirected = Self.passwordSignIn(capabilities: nil, service: service)
        #expect(redirected.status == 200 && redirected.body["challenge_type"] as? String == "redirect" && redirected.body["redirect_reason"] is String,
                "an app that cannot do MFA itself goes to the browser")
        let demanded = Self.passwordSignIn(capabilities: "mfa_required registration_required", service: service)
        #expect(demanded.status == 400 && demanded.body["suberror"] as? String == "mfa_required" && Self.firstCode(demanded.body) == 50076)
        let introspected = Self.post("oauth2/v2.0/introspect", [("client_id", Self.app), ("continuation_token", demanded.body["continuation_token"] as? String ?? "")], to: service)
        let method = try #require((introspected.body["methods"] as? [[String: Any]])?.first)
        #expect(method["challenge_type"] as? String == "oob" && method["challenge_channel"] as? String == "email" && method["login_hint"] as? String == "j*****@w********.e******")
        let challenged = Self.post("oauth2/v2.0/challenge", [("client_id", Self.app), ("continuation_token", introspected.body["continuation_token"] as? String ?? ""),
                                                             ("id", method["id"] as? String ?? ""), ("challenge_type", "oob redirect")], to: service)
        #expect(challenged.body["challenge_type"] as? String == "oob" && challenged.body["code_length"] as? Int == 8)
        let code = try #require(service.outbox.messages(to: Self.jordan).last)
        #expect(code.purpose == .mfa)
        let token = challenged.body["continuation_token"] as? String ?? ""
        let wrong = Self.token([("grant_type", "mfa_oob"), ("oob", "00000000"), ("continuation_token", token)], service: service)
        #expect(wrong.body["suberror"] as? String == "invalid_oob_value")
        let tokens = Self.token([("grant_type", "mfa_oob"), ("oob", code.code), ("continuation_token", token)], service: service)
        #expect(tokens.status == 200)
        #expect(F.claims(tokens.body["access_token"] as? String)?["amr"] as? [String] == ["pwd", "mfa"])
    }

    @Test func justInTimeRegistrationOfTheProvenEmailThenSignIn() throws {
        let (service, _) = Self.service()
        Self.requireMFA(of: Self.jordan, registered: false, in: service)
        #expect(Self.passwordSignIn(capabilities: "mfa_required", service: service).body["challenge_type"] as? String == "redirect",
                "registration needs its own capability")
        let demanded = Self.passwordSignIn(capabilities: "mfa_required registration_required", service: service)
        #expect(demanded.status == 400 && demanded.body["suberror"] as? String == "registration_required" && Self.firstCode(demanded.body) == 50076)
        let listed = Self.post("register/v1.0/introspect", [("client_id", Self.app), ("continuation_token", demanded.body["continuation_token"] as? String ?? "")], to: service)
        #expect((listed.body["methods"] as? [[String: Any]])?.first?["id"] as? String == "email")
        let bad = Self.post("register/v1.0/challenge", [("client_id", Self.app), ("continuation_token", listed.body["continuation_token"] as? String ?? ""),
                                                        ("challenge_type", "oob"), ("challenge_channel", "email"), ("challenge_target", "not-an-address")], to: service)
        #expect(bad.body["error"] as? String == "invalid_request" && Self.firstCode(bad.body) == 901001)
        let preverified = Self.post("register/v1.0/challenge", [("client_id", Self.app), ("continuation_token", listed.body["continuation_token"] as? String ?? ""),
                                                                ("challenge_type", "oob"), ("challenge_channel", "email"), ("challenge_target", Self.jordan)], to: service)
        #expect(preverified.body["challenge_type"] as? String == "preverified" && preverified.body["challenge_target"] as? String == Self.jordan)
        let registered = Self.post("register/v1.0/continue", [("client_id", Self.app), ("continuation_token", preverified.body["continuation_token"] as? String ?? ""),
                                                              ("grant_type", "continuation_token")], to: service)
        #expect(registered.status == 200)
        let tokens = Self.token([("grant_type", "continuation_token"), ("continuation_token", registered.body["continuation_token"] as? String ?? "")], service: service)
        #expect(tokens.status == 200)
        #expect(service.currentDirectory.user(signInName: Self.jordan)?.mfaRegistered == true)
        #expect(Self.passwordSignIn(capabilities: "mfa_required", service: service).body["suberror"] as? String == "mfa_required",
                "registered, the next sign-in asks for the second factor")
    }

    @Test func onlyTheProvenAddressCanBeRegisteredAndAChallengeWithoutIdUsesTheOneMethod() throws {
        let (service, _) = Self.service()
        Self.requireMFA(of: Self.jordan, registered: false, in: service)
        let demanded = Self.passwordSignIn(capabilities: "registration_required", service: service)
        let listed = Self.post("register/v1.0/introspect", [("client_id", Self.app), ("continuation_token", demanded.body["continuation_token"] as? String ?? "")], to: service)
        let other = Self.post("register/v1.0/challenge", [("client_id", Self.app), ("continuation_token", listed.body["continuation_token"] as? String ?? ""),
                                                          ("challenge_type", "oob"), ("challenge_channel", "email"), ("challenge_target", "jordan.backup@woodgrove.example")], to: service)
        #expect(other.status == 400 && Self.firstCode(other.body) == 901001)
        // Registered now (as after the registration above), an MFA challenge without `id` (MSAL Android) mails the code.
        Self.requireMFA(of: Self.jordan, registered: true, in: service)
        let mfa = Self.passwordSignIn(capabilities: "mfa_required", service: service)
        #expect(mfa.body["suberror"] as? String == "mfa_required")
        #expect(mfa.body["claims"] == nil, "no Conditional Access claims challenge in the native API's answer")
        let challenged = Self.post("oauth2/v2.0/challenge", [("client_id", Self.app), ("continuation_token", mfa.body["continuation_token"] as? String ?? ""),
                                                             ("challenge_type", "oob redirect")], to: service)
        #expect(challenged.body["challenge_type"] as? String == "oob")
        let code = try #require(service.outbox.messages(to: Self.jordan).last)
        #expect(code.purpose == .mfa)
        let tokens = Self.token([("grant_type", "mfa_oob"), ("oob", code.code), ("continuation_token", challenged.body["continuation_token"] as? String ?? "")], service: service)
        #expect(tokens.status == 200)
        let replayed = Self.token([("grant_type", "mfa_oob"), ("oob", code.code), ("continuation_token", challenged.body["continuation_token"] as? String ?? "")], service: service)
        #expect(replayed.status == 400 && Self.firstCode(replayed.body) == 55200, "a finished flow's token buys nothing more")
    }

    @Test func aSignUpSendsMFAOnAsASignInAndOddRequestsAreRefusedPlainly() throws {
        let (service, _) = Self.service()
        let address = "mfa-new@woodgrove.example"
        let passwordForCodesOnlyApp = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", address), ("password", "Str0ng!pass"),
                                                                      ("challenge_type", "oob redirect")], to: service)
        #expect(passwordForCodesOnlyApp.body["challenge_type"] as? String == "redirect" && passwordForCodesOnlyApp.body["redirect_reason"] is String)
        let tooLong = Self.post("signup/v1.0/start", [("client_id", Self.app), ("username", String(repeating: "a", count: 300) + "@woodgrove.example"),
                                                      ("challenge_type", "oob redirect")], to: service)
        #expect(tooLong.status == 400 && Self.firstCode(tooLong.body) == 90100)
        let unknownGrant = Self.token([("grant_type", "magic"), ("continuation_token", "x")], service: service)
        #expect(unknownGrant.body["error"] as? String == "unsupported_grant_type")
        let done = try Self.signUpWithACode(address, service: service)
        service.directory.withLock { directory in
            if let index = directory.users.firstIndex(where: { $0.answers(to: address) }) { directory.users[index].mfaRequired = true; directory.users[index].mfaRegistered = true }
        }
        let demanded = Self.token([("grant_type", "continuation_token"), ("continuation_token", done.body["continuation_token"] as? String ?? "")], service: service)
        #expect(demanded.body["challenge_type"] as? String == "redirect", "the sign-up did not declare mfa_required")
    }

    @Test func theOutboxAndTheFlowsStayBounded() throws {
        let outbox = Outbox()
        let now = Date(timeIntervalSince1970: 0)
        for index in 0..<(Outbox.addresses + 5) {
            outbox.send(OutboxMessage(to: "a\(index)@x.example", subject: "s", code: "1", purpose: .signUp, sentAt: now, expiresAt: now))
        }
        #expect(outbox.messages(to: "a0@x.example").isEmpty && outbox.messages(to: "a\(Outbox.addresses + 4)@x.example").count == 1,
                "the addresses written to longest ago go first")
        for _ in 0..<(Outbox.perAddress + 3) {
            outbox.send(OutboxMessage(to: "same@x.example", subject: "s", code: "2", purpose: .signIn, sentAt: now, expiresAt: now))
        }
        #expect(outbox.messages(to: "SAME@x.example").count == Outbox.perAddress)
        // Address after address asked for the most codes each: the messages kept in all stay bounded.
        let crowded = Outbox()
        for index in 0..<(Outbox.messagesInAll / Outbox.perAddress + 20) {
            for _ in 0..<Outbox.perAddress {
                crowded.send(OutboxMessage(to: "b\(index)@x.example", subject: "s", code: "3", purpose: .signUp, sentAt: now, expiresAt: now))
            }
        }
        #expect(crowded.count <= Outbox.messagesInAll && crowded.count > Outbox.messagesInAll - Outbox.perAddress)
        #expect(crowded.messages(to: "b0@x.example").isEmpty)

        let flows = NativeAuthFlows()
        let flow = NativeAuthFlow(id: "f", kind: .signIn, clientID: "c", tenantID: "t", username: "u", userID: nil, challengeTypes: ["redirect"], expiresAt: now)
        let first = flows.start(flow, now: now)
        let second = try #require(flows.advance(flow, on: .codeSent, now: now))
        let holder = NativeAuthFlows.Presenter.v1(tenantID: "t", clientID: "C")
        #expect(throws: NativeAuthFlows.Refusal.invalid, "a step that succeeded retires the flow's earlier token") { try flows.flow(presented: first, by: holder, now: now) }
        #expect(try flows.flow(presented: second, by: holder, now: now).step == .codeSent, "the newest token stays valid (its client named in any case)")
        #expect(throws: NativeAuthFlows.Refusal.invalid, "another client's request") { try flows.flow(presented: second, by: .v1(tenantID: "t", clientID: "other"), now: now) }
        #expect(throws: NativeAuthFlows.Refusal.invalid, "a V2 request") { try flows.flow(presented: second, by: .v2(tenantID: "t"), now: now) }
        #expect(throws: NativeAuthFlows.Refusal.expired) { try flows.flow(presented: second, by: holder, now: now.addingTimeInterval(3600)) }
        #expect(flows.finish("f") && !flows.finish("f"), "one of two racing requests finishes a flow")
        #expect(flows.advance(flow, on: .finished, now: now) == nil, "a finished flow does not come back")

        // At most `capacity` flows live: the oldest live ones make room. Ending flows or dropping the
        // oldest never moves the others, and the ids kept for the order stay bounded however many flows
        // come and go.
        let crowd = NativeAuthFlows()
        func started(_ id: String) -> String {
            crowd.start(NativeAuthFlow(id: id, kind: .signIn, clientID: "C", tenantID: "t", username: "u", userID: nil, challengeTypes: ["redirect"], expiresAt: now),
                        now: now)
        }
        let tokens = (0..<(NativeAuthFlows.capacity + 10)).map { started("c\($0)") }
        func alive(_ token: String) -> Bool { (try? crowd.flow(presented: token, by: holder, now: now)) != nil }
        #expect(!alive(tokens[0]) && !alive(tokens[9]) && alive(tokens[10]) && alive(tokens.last!), "the ten oldest made room")
        for index in stride(from: 10, to: 5_000, by: 2) { #expect(crowd.finish("c\(index)")) }
        for round in 0..<(3 * NativeAuthFlows.capacity) {
            let token = started("r\(round)")
            if round % 3 != 0 { #expect(crowd.finish("r\(round)")) } else { #expect(alive(token)) }
        }
        #expect(crowd.orderedIDs <= 2 * NativeAuthFlows.capacity + 1, "\(crowd.orderedIDs) ids kept")
        #expect(alive(tokens.last!) == false && alive(started("last")), "the newest start always lives")
    }

    /// A flow moves only where `after(_:)` says an event leaves it: a token for one step cannot skip the
    /// steps that prove who is there, the kind changes only as `after(_:)` says, and every step is reachable
    /// from a V1 or a V2 start.
    @Test func aFlowMovesOnlyAsItsEventsSay() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let flows = NativeAuthFlows()
        let flow = NativeAuthFlow(id: "r", kind: .resetPassword, clientID: "c", tenantID: "t", username: "u", userID: "u1", challengeTypes: ["oob"], expiresAt: now)
        _ = flows.start(flow, now: now)
        #expect(flows.advance(flow, on: .addressProven, now: now) == nil, "a new password before the mailed code")
        #expect(flows.advance(flow, on: .finished, now: now) == nil, "done before anything was proved")
        #expect(flows.advance(flow, on: .journeyChosen(.signIn), now: now) == nil, "only V2's entry token chooses its journey")
        _ = try #require(flows.advance(flow, on: .codeSent, now: now))
        let proven = try #require(flows.advance(flow, on: .addressProven, now: now))
        let holder = NativeAuthFlows.Presenter.v1(tenantID: "t", clientID: "c")
        #expect(try flows.flow(presented: proven, by: holder, now: now).step == .newPasswordRequired)
        #expect(flows.advance(flow, on: .codeSent, now: now) == nil, "no code once the address is proved")
        _ = try #require(flows.advance(flow, on: .newPasswordSubmitted, now: now))
        _ = try #require(flows.advance(flow, on: .finished, now: now))
        let demanded = try #require(flows.advance(flow, on: .secondFactorDemanded(registered: true), now: now))
        let signIn = try flows.flow(presented: demanded, by: holder, now: now)
        #expect(signIn.kind == .signIn && signIn.step == .mfaRequired, "a finished reset that needs a second factor goes on as a sign-in")

        // Every step is reached by some sequence of events from a start, each move made by the store as a
        // request would make it.
        func reached(_ kind: NativeAuthFlow.Kind, v2: Bool, by events: [NativeAuthFlow.Event]) throws -> NativeAuthFlow {
            let store = NativeAuthFlows()
            var flow = NativeAuthFlow(id: "x", kind: kind, clientID: "c", tenantID: "t", username: "u", userID: nil, challengeTypes: [], expiresAt: now)
            flow.isV2 = v2
            var token = store.start(flow, now: now)
            let presenter: NativeAuthFlows.Presenter = v2 ? .v2(tenantID: "t") : holder
            for event in events {
                token = try #require(store.advance(try store.flow(presented: token, by: presenter, now: now), on: event, now: now))
            }
            return try store.flow(presented: token, by: presenter, now: now)
        }
        let events: [NativeAuthFlow.Event] = [
            .journeyChosen(.signIn), .journeyChosen(.signUp), .journeyChosen(.resetPassword), .passwordAsked, .codeSent, .phoneCheckAsked,
            .attributesAsked, .secondFactorDemanded(registered: true), .secondFactorDemanded(registered: false), .methodsListed,
            .contactPreverified, .addressProven, .newPasswordSubmitted, .finished, .handedToBrowser,
        ]
        struct Place: Hashable { var kind: NativeAuthFlow.Kind, step: NativeAuthFlow.Step, v2: Bool }
        var seen: Set<Place> = []
        var frontier: [(kind: NativeAuthFlow.Kind, v2: Bool, path: [NativeAuthFlow.Event])] =
            [(.signIn, false, []), (.signUp, false, []), (.resetPassword, false, []), (.signIn, true, [])]
        while let (kind, v2, path) = frontier.popLast() {
            let flow = try reached(kind, v2: v2, by: path)
            guard seen.insert(Place(kind: flow.kind, step: flow.step, v2: v2)).inserted else { continue }
            for event in events where flow.after(event) != nil { frontier.append((kind, v2, path + [event])) }
        }
        #expect(Set(seen.map(\.step)) == Set(NativeAuthFlow.Step.allCases), "every step reachable: \(Set(seen.map(\.step)))")
    }

    /// One rule for an email address, the pages' and the native API's: a leading, trailing or doubled dot,
    /// a missing part, or whitespace anywhere is refused.
    @Test(arguments: [("jordan@woodgrove.example", true), ("first.last+tag@sub.example.com", true), ("a@b.co", true),
                      ("a@.com", false), ("a@com.", false), ("a@b..com", false), ("@b.com", false), ("a@b", false), ("a@@b.com", false),
                      ("a b@c.com", false), ("a@b.com\t", false), ("a@b.com\u{00A0}", false), ("a\u{0}@b.com", false), ("", false)])
    func anEmailAddressIsOneRule(address: String, valid: Bool) {
        #expect(EmailAddress.isValid(address) == valid)
    }

    @Test func codesAreEightDigitsAndAddressesAreMaskedByLabel() {
        let code = NativeAuthFlows.newCode()
        #expect(code.count == 8 && code.allSatisfy(\.isNumber))
        #expect(NativeAuthEndpoints.masked("c.r@contoso.com") == "c.r@c******.c**")
    }
}

/// What a page post can do to an External ID customer who signs in with codes only.
@Suite struct CodesOnlyCustomerPageTests {
    @Test func aPasswordChangePostCannotGiveACodesOnlyCustomerAPassword() throws {
        let browser = ScriptedBrowser()
        let address = "codes-only@woodgrove.example"
        browser.service.directory.withLock { directory in
            directory.users.append(DirectoryUser(id: "5b1d7c3e-2a4f-4e6b-8c9d-0e1f2a3b4c5d", tenantID: Directory.woodgroveTenantID,
                                                 userPrincipalName: "5b1d7c3e-2a4f-4e6b-8c9d-0e1f2a3b4c5d@woodgrove.onmicrosoft.com",
                                                 displayName: "Codes Only", mail: address, password: ""))
        }
        let page = browser.get(BrowserFixtures.authorize(tenant: "woodgrove.onmicrosoft.com"))
        let form = try #require(ScrapedForm.parse(page.bodyText, id: "signin") ?? ScrapedForm.parse(page.bodyText, id: "login"), "\(page.bodyText.prefix(300))")
        browser.post(form.action, form.hidden + [("action", "changepassword"), ("login", address), ("currentPassword", ""),
                                                 ("newPassword", "Attack3r!pass"), ("confirmNewPassword", "Attack3r!pass")])
        #expect(browser.service.currentDirectory.user(signInName: address)?.password == "", "the post changed nothing")
    }

    @Test func theSignUpPageHoldsANewPasswordToTheNativeAPIsRules() throws {
        let browser = ScriptedBrowser()
        let page = browser.get(BrowserFixtures.authorize(tenant: "woodgrove.onmicrosoft.com", extra: [("prompt", "create")]))
        let weak = browser.submit(page, form: "signup", [("action", "create"), ("email", "weak@woodgrove.example"), ("displayName", "W"), ("passwd", "password1")])
        #expect(weak.bodyText.contains("New password is too weak") && weak.has("signup"))
        let strong = browser.submit(weak, form: "signup", [("action", "create"), ("email", "weak@woodgrove.example"), ("displayName", "W"), ("passwd", "Str0ng!pass")])
        #expect(strong.bodyText.contains("id=\"VerificationCode\""), "a strong password goes on to the email's code")
    }
}
