import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// External ID's native authentication API, sign-in, sign-up and password reset (learn.microsoft.com, "Native
/// authentication API reference"; the request sequences of MSAL for iOS/macOS's native-auth controllers).
/// Every answer is JSON: 200 with the next `continuation_token` (or `{"challenge_type":"redirect"}` when
/// the app cannot do what the flow needs), 400 with an Entra error. Tokens come from the token endpoint
/// (`NativeAuthGrants`).
enum NativeAuthEndpoints {
    static func respond(_ exchange: IdentityExchange, endpoint: NativeAuthEndpoint) -> HTTPResponse {
        let segment = exchange.route.tenantSegment
        guard let tenant = exchange.service.currentDirectory.tenant(matching: segment) else {
            return NativeAuthError(.tenantNotFound(segment)).response(in: exchange.trace)
        }
        guard tenant.servesNativeAuthentication else { return WorldRouter.notFound(exchange.request, exchange.context) }
        do {
            let request = try NativeAuthRequest(exchange, tenant: tenant)
            return switch endpoint {
            case .signInInitiate: try signInInitiate(request)
            case .signInChallenge: try challenge(request, kind: .signIn)
            case .signInIntrospect: try NativeAuthStrongAuth.introspect(request)
            case .registerIntrospect: try NativeAuthStrongAuth.registrationIntrospect(request)
            case .registerChallenge: try NativeAuthStrongAuth.registrationChallenge(request)
            case .registerContinue: try NativeAuthStrongAuth.registrationContinue(request)
            case .signUpStart: try signUpStart(request)
            case .signUpChallenge: try challenge(request, kind: .signUp)
            case .signUpContinue: try signUpContinue(request)
            case .resetPasswordStart: try resetPasswordStart(request)
            case .resetPasswordChallenge: try challenge(request, kind: .resetPassword)
            case .resetPasswordContinue: try resetPasswordContinue(request)
            case .resetPasswordSubmit: try resetPasswordSubmit(request)
            case .resetPasswordPollCompletion: try resetPasswordPollCompletion(request)
            }
        } catch {
            return error.response(in: exchange.trace)
        }
    }

    // MARK: Sign-in

    /// `oauth2/v2.0/initiate`: the user must exist; a token to choose the method with.
    static func signInInitiate(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let username = try request.requiredShort("username")
        let challengeTypes = try request.challengeTypes()
        guard let user = request.user(named: username) else {
            throw NativeAuthError(.nativeAuthUserNotFound(tenant: request.tenant.primaryDomain))
        }
        var flow = NativeAuthFlow(id: NativeAuthFlows.newFlowID(), kind: .signIn, clientID: request.clientID, tenantID: request.tenant.id,
                                  username: username, userID: user.id, challengeTypes: challengeTypes, expiresAt: request.now)
        flow.capabilities = request.capabilities()
        return request.answer(["continuation_token": .string(request.flows.start(flow, now: request.now))])
    }

    /// `oauth2/v2.0/challenge` and `signup/v1.0/challenge`: the method the flow goes on with. A password
    /// where the user has one and the app can ask for it, else a code mailed to the address; asked again,
    /// a new code replaces the last.
    static func challenge(_ request: NativeAuthRequest, kind: NativeAuthFlow.Kind) throws(NativeAuthError) -> HTTPResponse {
        // A second factor's challenge: with the method the client picked (`id`), or without one from a client
        // that goes straight on with the default method (MSAL Android).
        let presented = try request.presentedFlow()
        if kind == .signIn, request.optional("id") != nil || (presented.kind == .signIn && NativeAuthStrongAuth.secondFactorSteps.contains(presented.step)) {
            return try NativeAuthStrongAuth.mfaChallenge(request, flow: try NativeAuthRequest.require(presented, kind: .signIn, steps: NativeAuthStrongAuth.secondFactorSteps))
        }
        var flow = try NativeAuthRequest.require(presented, kind: kind, steps: [.started, .codeSent, .passwordRequired, .credentialRequired])
        if request.optional("challenge_type") != nil { flow.challengeTypes = try request.challengeTypes() }
        // A customer of a one-time-passcode user flow signs in with codes, whatever the account holds.
        let hasPassword = kind == .signIn && request.user(id: flow.userID).map { !request.userFlow.signsInWithCode($0) } ?? false
        if flow.step == .credentialRequired || (hasPassword && flow.step != .codeSent) {
            guard flow.challengeTypes.contains("password") else { return request.redirect("The client does not support the password challenge the user needs.") }
            return request.answer([
                "continuation_token": .string(try request.advance(flow, on: .passwordAsked)),
                "challenge_type": .string("password"),
            ])
        }
        guard flow.challengeTypes.contains("oob") else { return request.redirect("The client does not support the email one-time passcode the flow needs.") }
        // A code goes to the account's email, whatever name the user signed in with.
        let address = request.user(id: flow.userID)?.mail ?? flow.username
        request.mailCode(to: address, in: &flow, purpose: kind.mailPurpose)
        return request.answer([
            "interval": .int(300),
            "continuation_token": .string(try request.advance(flow, on: .codeSent)),
            "challenge_type": .string("oob"),
            "binding_method": .string("prompt"),
            "challenge_channel": .string("email"),
            "challenge_target_label": .string(Self.masked(address)),
            "code_length": .int(NativeAuthFlows.codeLength),
        ])
    }

    // MARK: Sign-up

    /// `signup/v1.0/start`: a new address, and what the user gave up front (password, attributes).
    static func signUpStart(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let username = try request.requiredShort("username")
        let challengeTypes = try request.challengeTypes()
        guard EmailAddress.isValid(username) else {
            throw NativeAuthError(.nativeParameterInvalid("username"))
        }
        if request.user(named: username) != nil { throw NativeAuthError(.userAlreadyExists()) }
        var flow = NativeAuthFlow(id: NativeAuthFlows.newFlowID(), kind: .signUp, clientID: request.clientID, tenantID: request.tenant.id,
                                  username: username, userID: nil, challengeTypes: challengeTypes, expiresAt: request.now)
        flow.capabilities = request.capabilities()
        // Every sign-up verifies the address first, and the user flow decides whether a password comes
        // too; an app that cannot show what the flow needs goes to the browser.
        guard challengeTypes.contains("oob") else { return request.redirect("The client does not support the email one-time passcode sign-up needs.") }
        let userFlow = request.userFlow
        if userFlow.emailMethod == .emailWithPassword, !challengeTypes.contains("password") {
            return request.redirect("The client does not support the password challenge the user flow needs.")
        }
        flow.attributes = try request.attributes()
        if let password = request.optional("password") {
            guard userFlow.allowsPassword(appCanAsk: challengeTypes.contains("password")) else {
                guard challengeTypes.contains("password") else { return request.redirect("The client does not support the password challenge type.") }
                throw NativeAuthError.passwordNotSupported()
            }
            try PasswordPolicy.check(password, tenant: request.tenant, names: [flow.attributes["givenName"], flow.attributes["surname"]])
            flow.password = password
        }
        try Self.checkAttributes(flow.attributes, of: userFlow)
        return request.answer(["continuation_token": .string(request.flows.start(flow, now: request.now))])
    }

    /// Attributes that fail the user flow's rules are refused by name; the same token may send them again.
    static func checkAttributes(_ values: [String: String], of userFlow: ExternalUserFlow) throws(NativeAuthError) {
        let invalid = userFlow.invalidAttributes(in: values)
        if !invalid.isEmpty { throw NativeAuthError.attributeValidationFailed(invalid.map(\.name)) }
    }

    /// `signup/v1.0/continue`: the code, then the password and attributes the user flow still needs;
    /// once nothing is missing the account is made and the token signs it in.
    static func signUpContinue(_ request: NativeAuthRequest) throws(NativeAuthError) -> HTTPResponse {
        let grantType = try request.required("grant_type")
        var flow = try request.flow(kind: .signUp, steps: [.codeSent, .credentialRequired, .attributesRequired])
        switch (grantType, flow.step) {
        case ("oob", .codeSent):
            try request.checkCode(flow, presented: try request.required("oob"))
            flow.code = nil
        case ("password", .credentialRequired):
            let password = try request.required("password")
            try PasswordPolicy.check(password, tenant: request.tenant, names: [flow.attributes["givenName"], flow.attributes["surname"]])
            flow.password = password
        case ("attributes", .attributesRequired):
            let attributes = try request.attributes()
            try Self.checkAttributes(attributes, of: request.userFlow)
            flow.attributes.merge(attributes) { _, new in new }
        case ("oob", _), ("password", _), ("attributes", _):
            throw NativeAuthError(.continuationTokenInvalid())
        default:
            throw NativeAuthError(.unsupportedGrantType(grantType))
        }
        if flow.password == nil, request.userFlow.allowsPassword(appCanAsk: flow.challengeTypes.contains("password")) {
            throw NativeAuthError(.credentialRequired(), continuationToken: try request.advance(flow, on: .passwordAsked))
        }
        let missing = request.userFlow.missingAttributes(in: flow.attributes)
        if !missing.isEmpty {
            throw NativeAuthError(.attributesRequired(), continuationToken: try request.advance(flow, on: .attributesAsked),
                                  requiredAttributes: missing)
        }
        flow.userID = try request.createAccount(flow)
        return request.answer(["continuation_token": .string(try request.advance(flow, on: .finished))])
    }

    /// How the service shows the address a code went to: the first letter of each part, stars for the rest
    /// (`c***r@co**o**o.com` in the reference; FakeEntra keeps first letters and dots).
    static func masked(_ address: String) -> String {
        func maskLabel(_ label: Substring) -> String {
            guard let first = label.first else { return "" }
            return String(first) + String(repeating: "*", count: label.count - 1)
        }
        return address.split(separator: "@", maxSplits: 1)
            .map { part in part.split(separator: ".", omittingEmptySubsequences: false).map(maskLabel).joined(separator: ".") }
            .joined(separator: "@")
    }

    /// A number a text can go to: 7 to 15 ASCII digits (E.164's longest is 15), written with `+`, spaces,
    /// dashes, dots or parentheses, 32 characters at most.
    static func isTextable(_ phone: String) -> Bool {
        let digits = phone.utf8.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        return phone.utf8.count <= 32 && (7...15).contains(digits) && phone.allSatisfy { ($0.isASCII && $0.isNumber) || "+ -().".contains($0) }
    }

    /// The phone a text can go to, if the user has one.
    static func textablePhone(of user: DirectoryUser) -> String? {
        user.mobilePhone.flatMap { isTextable($0) ? $0 : nil }
    }

    /// A contact as a hint shows it: an email address (`channel` `email`) or a phone number (`sms`).
    static func masked(_ address: String, channel: String) -> String {
        channel == "sms" ? maskedPhone(address) : masked(address)
    }

    /// Every digit but the last two hidden, the rest kept (`+*** *******11`, as the fixtures show it).
    static func maskedPhone(_ phone: String) -> String {
        let digits = phone.filter(\.isNumber).count
        var seen = 0
        return String(phone.map { character -> Character in
            guard character.isNumber else { return character }
            seen += 1
            return seen > digits - 2 ? character : "*"
        })
    }
}
