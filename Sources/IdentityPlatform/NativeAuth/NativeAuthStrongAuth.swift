import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// A second factor in the native authentication API (learn.microsoft.com, "Native authentication API
/// reference", multifactor authentication and just-in-time registration; MSAL for iOS/macOS's MFA and JIT
/// controllers). When the user must prove a second factor (`mfaRequired`, or a scenario's `requireMFA`),
/// the token endpoint answers `mfa_required` to an app that declared the `mfa_required` capability and
/// sends others to the browser; a user with no method registered gets `registration_required` (or the
/// browser) and registers their email first. FakeEntra's second factor is a code mailed to the user.
enum NativeAuthStrongAuth {

    /// Where a sign-in proves its second factor: what its introspect and challenge take.
    static let secondFactorSteps: [NativeAuthFlow.Step] = [.mfaRequired, .mfaMethodsListed, .mfaCodeSent]

    static func needsSecondFactor(_ user: DirectoryUser, directives: ScenarioDirectives) -> Bool {
        user.mfaRequired || directives.requireMFA
    }

    /// What the token endpoint answers once the first factor passed and a second is needed.
    static func demand(_ flow: NativeAuthFlow, user: DirectoryUser, firstFactor: String, flows: NativeAuthFlows, now: Date, trace: TraceContext) -> HTTPResponse {
        var flow = flow
        flow.firstFactor = firstFactor
        let registered = user.mfaRegistered
        let capability = registered ? "mfa_required" : "registration_required"
        guard flow.capabilities.contains(capability) else {
            return NativeAuthResponse.redirect("Client is missing \(capability) capability")
        }
        guard let token = flows.advance(flow, on: .secondFactorDemanded(registered: registered), now: now) else {
            return NativeAuthError(.continuationTokenInvalid()).response(in: trace)
        }
        return NativeAuthError(registered ? .nativeMFARequired() : .nativeRegistrationRequired(), continuationToken: token).response(in: trace)
    }

    /// The id a user's email method has in `methods`: stable per user, as the service's are.
    static func emailMethodID(of user: DirectoryUser) -> String { methodID("email", of: user) }

    /// The id of a user's phone (text message) method, stable in the same way.
    static func smsMethodID(of user: DirectoryUser) -> String { methodID("sms", of: user) }

    private static func methodID(_ channel: String, of user: DirectoryUser) -> String {
        Hex.guid(Array(Digest.sha256(Array("fakeentra-mfa-\(channel):\(user.id)".utf8)).prefix(16)))
    }

    /// Whether `email` may be registered as the user's second factor: only the address they proved (a user's
    /// second email is not kept).
    static func isRegistrable(email: String, for user: DirectoryUser?, flow: NativeAuthFlow) -> Bool {
        email.caseInsensitiveCompare(user?.mail ?? flow.username) == .orderedSame
    }

    // MARK: Multifactor authentication

    /// `oauth2/v2.0/introspect`: the second-factor methods the user has: their email, and their mobile
    /// phone (`challenge_channel: sms`, MSAL for iOS's `MSALNativeAuthChannelType.isSMSType`) when they have one.
    static func introspect(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .signIn, steps: secondFactorSteps)
        guard let user = request.user(id: flow.userID) else { throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain)) }
        var methods: [JSONValue] = [.object([
            "id": .string(emailMethodID(of: user)), "challenge_type": .string("oob"), "challenge_channel": .string("email"),
            "login_hint": .string(NativeAuthEndpoints.masked(user.mail ?? flow.username)),
        ])]
        if let phone = NativeAuthEndpoints.textablePhone(of: user) {
            methods.append(.object([
                "id": .string(smsMethodID(of: user)), "challenge_type": .string("oob"), "challenge_channel": .string("sms"),
                "login_hint": .string(NativeAuthEndpoints.maskedPhone(phone)),
            ]))
        }
        return request.answer([
            "continuation_token": .string(try request.advance(flow, on: .methodsListed)),
            "methods": .array(methods),
        ])
    }

    /// `oauth2/v2.0/challenge` with the chosen method's `id` (or none: the email): the code is mailed, or
    /// texted to the phone, again on a resend.
    static func mfaChallenge(_ request: NativeAuthRequest, flow: NativeAuthFlow) throws(NativeAuthError) -> HTTPResponse {
        var flow = flow
        guard let user = request.user(id: flow.userID) else { throw NativeAuthError(.authenticationMethodNotValid()) }
        let chosen = request.optional("id") ?? emailMethodID(of: user)
        let (channel, address): (String, String)
        if chosen == emailMethodID(of: user) {
            (channel, address) = ("email", user.mail ?? flow.username)
        } else if chosen == smsMethodID(of: user), let phone = NativeAuthEndpoints.textablePhone(of: user) {
            (channel, address) = ("sms", phone)
        } else {
            throw NativeAuthError(.authenticationMethodNotValid())
        }
        let label = NativeAuthEndpoints.masked(address, channel: channel)
        request.mailCode(to: address, in: &flow, purpose: .mfa)
        return request.answer([
            "continuation_token": .string(try request.advance(flow, on: .codeSent)),
            "challenge_type": .string("oob"), "binding_method": .string("prompt"), "challenge_channel": .string(channel),
            "challenge_target_label": .string(label), "code_length": .int(NativeAuthFlows.codeLength),
        ])
    }

    // MARK: Just-in-time registration

    /// `register/v1.0/introspect`: the methods the user may register (an email address).
    static func registrationIntrospect(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .signIn, steps: [.registrationRequired, .registrationMethodListed])
        let method = JSONValue.object([
            "id": .string("email"), "challenge_type": .string("oob"), "challenge_channel": .string("email"),
            "login_hint": .string(NativeAuthEndpoints.masked(flow.username)),
        ])
        return request.answer([
            "continuation_token": .string(try request.advance(flow, on: .methodsListed)),
            "methods": .array([method]),
        ])
    }

    /// `register/v1.0/challenge`: the contact to register. FakeEntra registers the address the user already
    /// proved (`preverified`, no code); any other contact is refused (901001), as a user's second email
    /// is not kept.
    static func registrationChallenge(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .signIn, steps: [.registrationMethodListed, .registrationPreverified])
        let target = try request.requiredShort("challenge_target")
        guard (request.optional("challenge_channel") ?? "email") == "email",
              isRegistrable(email: target, for: request.user(id: flow.userID), flow: flow) else {
            throw NativeAuthError(.challengeTargetNotRegistrable())
        }
        return request.answer([
            "continuation_token": .string(try request.advance(flow, on: .contactPreverified)),
            "challenge_type": .string("preverified"), "binding_method": .string("none"), "challenge_target": .string(target),
            "challenge_channel": .string("email"),
        ])
    }

    /// `register/v1.0/continue` with `grant_type=continuation_token`: the method is registered and the
    /// token signs the user in.
    static func registrationContinue(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let flow = try request.flow(kind: .signIn, steps: [.registrationPreverified])
        guard try request.required("grant_type") == "continuation_token" else {
            throw NativeAuthError(.unsupportedGrantType(try request.required("grant_type")))
        }
        let userID = flow.userID ?? ""
        let answer = request.answer(["continuation_token": .string(try request.advance(flow, on: .finished))])
        request.service.directory.withLock { directory in directory.registerSecondFactor(userID: userID, phone: nil) }
        return answer
    }
}

/// A 200 answer of the native authentication API.
enum NativeAuthResponse {
    /// `{"challenge_type": "redirect"}`: the flow goes on in a browser, with why (MSAL's tests read `redirect_reason`).
    static func redirect(_ reason: String) -> HTTPResponse {
        json(["challenge_type": .string("redirect"), "redirect_reason": .string(reason)])
    }

    static func json(_ members: KeyValuePairs<String, JSONValue>) -> HTTPResponse {
        json(members.map { ($0.key, $0.value) })
    }

    /// Every answer of the native API, V1's and V2's, with the headers the service sends on them.
    static func json(_ members: [(String, JSONValue)], status: HTTPStatus = .ok) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store, no-cache")
        return HTTPResponse(status: status, headers: headers, body: JSONValue.object(members).bytes)
    }
}
