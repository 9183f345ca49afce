import ExchangeKernel
import EntraHTTP
import FoundationGaps
import LocatedJSON
import Synchronization

/// Native authentication V2 (preview, 2026): server-driven. `POST /oauth2/v2.0/authorize-challenge` with
/// the client id answers 401 with a continuation token and the journeys' links (`sign_in`, `sign_up`,
/// `reset_password`); each step answers HAL JSON (`state`, `action`, `continuationToken`, `_links`,
/// `_embedded.methods`) naming the next; a journey ends with `state: continue`, the same endpoint with
/// the token alone answers `{"code"}`, and the token endpoint redeems it. Shapes as MSAL for iOS's V2
/// validators, msal-browser's `custom_auth/v2` and MSAL Android's V2 parsers read them, and their test
/// fixtures (SignInV2.spec.ts, SignUpV2.spec.ts, ResetPasswordV2.spec.ts; MSALNativeAuthV2ResponseValidator).
/// The journeys reuse V1's flows (`NativeAuthFlows`), codes and password rules; a flow started here
/// answers only here.
enum NativeAuthV2 {
    static func respond(_ exchange: IdentityExchange, step: NativeAuthV2Step) -> HTTPResponse {
        answer(exchange) { request, tenant throws(NativeAuthV2Error) in
            switch step {
            case .authorizeChallenge:
                return try authorizeChallenge(request, tenant: tenant)
            case .signInStart: return try signInStart(request, tenant: tenant)
            case .signUpStart: return try signUpStart(request, tenant: tenant)
            case .resetPasswordStart: return try resetPasswordStart(request, tenant: tenant)
            case .methodChallenge(let type, let id): return try challenge(request, tenant: tenant, type: type, id: id)
            case .methodVerify(let type, let id): return try verify(request, tenant: tenant, type: type, id: id)
            case .submitAttributes: return try submitAttributes(request, tenant: tenant)
            case .updatePassword: return try updatePassword(request, tenant: tenant)
            case .poll: return try poll(request, tenant: tenant)
            case .phoneCheck: return try phoneCheck(request, tenant: tenant)
            case .methodRegister(let type, _): return try register(request, tenant: tenant, type: type)
            case .methodActivate(let type, _): return try activate(request, tenant: tenant, type: type)
            }
        }
    }

    /// A scenario's hand-off to the browser at a step: the journey's flow answers it with a new token,
    /// as the steps answer a journey the app cannot finish.
    static func browserRequired(_ exchange: IdentityExchange) -> HTTPResponse {
        answer(exchange) { request, tenant throws(NativeAuthV2Error) in
            try request.webFallback(try request.flow(try request.continuationToken(), tenant: tenant))
        }
    }

    /// A V2 request answered by `body`, in its tenant (404 for a tenant V2 does not serve), its refusals in
    /// their own shape.
    private static func answer(_ exchange: IdentityExchange,
                               _ body: (NativeAuthV2Request, Tenant) throws(NativeAuthV2Error) -> HTTPResponse) -> HTTPResponse {
        let request = NativeAuthV2Request(exchange)
        guard let tenant = request.tenant else { return WorldRouter.notFound(exchange.request, exchange.context) }
        do { return try body(request, tenant) } catch { return error.response(in: exchange.trace) }
    }

    // MARK: - The authorization challenge

    /// With `client_id`: a new journey's token and its links (401 InsufficientAuthorization, as recorded in
    /// the SDKs' fixtures and the reference). With `continuation_token` alone: a finished journey's code.
    static func authorizeChallenge(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        let form = request.exchange.request.form
        if form["client_id"] == nil, let token = form["continuation_token"], !token.isEmpty {
            return try issueCode(request, tenant: tenant, token: token)
        }
        let v1: NativeAuthRequest
        do { v1 = try NativeAuthRequest(request.exchange, tenant: tenant) } catch { throw NativeAuthV2Error(error) }
        var flow = NativeAuthFlow(id: NativeAuthFlows.newFlowID(), kind: .signIn, clientID: v1.clientID, tenantID: tenant.id,
                                  username: "", userID: nil, challengeTypes: ["password", "oob", "redirect"], expiresAt: request.now)
        flow.isV2 = true
        flow.requestedScope = form["scope"]
        let token = request.flows.start(flow, now: request.now)
        let base = request.base(tenant)
        var response = NativeAuthResponse.json([
            "error": .string("InsufficientAuthorization"), "error_description": .string("No authenticated credentials found in request."),
            "continuation_token": .string(token), "sign_in": .string("\(base)/signin/start"), "sign_up": .string("\(base)/signup/start"),
            "reset_password": .string("\(base)/resetpassword/start"),
        ])
        response.status = HTTPStatus(401)
        return response
    }

    /// A finished journey's token, spent once for an authorization code the token endpoint redeems (no
    /// redirect URI, no PKCE: the flow proved who the user is).
    static func issueCode(_ request: NativeAuthV2Request, tenant: Tenant, token: String) throws(NativeAuthV2Error) -> HTTPResponse {
        let flow = try request.flow(token, tenant: tenant)
        guard flow.step == .completed, let user = request.user(id: flow.userID) else {
            throw NativeAuthV2Error.invalidContinuationToken
        }
        if let problem = NativeAuthError.accountProblem(user) { throw NativeAuthV2Error(problem) }
        guard request.flows.finish(flow.id) else { throw NativeAuthV2Error.invalidContinuationToken }
        let directory = request.exchange.service.currentDirectory
        let client = (try? ClientResolver.resolve(clientID: flow.clientID, directory: directory, options: request.exchange.service.options, tenant: tenant))?.application
            ?? ClientResolver.lenientApplication(clientID: flow.clientID)
        // An app's own customers: what it is configured for is consented, as no page can ask.
        request.exchange.service.directory.withLock { directory in
            for access in client.requiredResourceAccess {
                guard let resource = directory.resource(named: access.resource) else { continue }
                directory.recordConsent(client: client, resource: resource, permissions: access.scopes, user: user)
            }
        }
        let scopes = (flow.requestedScope ?? "openid profile offline_access").split(separator: " ").map(String.init)
        let grant = GrantContext(clientID: flow.clientID, userID: user.id, tenantID: tenant.id, scopes: scopes, resourceAppID: nil,
                                 endpointVersion: .v2, authTime: request.now, authenticationMethods: flow.methods)
        let code = TokenIdentifiers.opaqueInternal()
        request.exchange.service.issueCode(code, grant: grant, redirectURI: "", now: request.now)
        request.exchange.receipt.grant(.authorizationCode, .created, handle: code)
        return NativeAuthResponse.json(["code": .string(code)])
    }

    // MARK: - Sign-in

    static func signInStart(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        let (flow, user) = try begin(request, tenant: tenant)
        let methods = request.firstFactorMethods(for: user, tenant: tenant)
        return try request.hal(flow, on: .journeyChosen(.signIn), [
            "state": .string("interactionRequired"), "action": .string("challenge"), "scenario": .string("signin"),
            "challengeContext": .object([("authenticationFactor", .string("singleFactor"))]),
            "_embedded": .object([("methods", .array(methods))]),
        ])
    }

    /// A sign-in's or a reset's start: the entry token, the user named (who must exist and may sign in).
    static func begin(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> (NativeAuthFlow, DirectoryUser) {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .started, flow.userID == nil else { throw NativeAuthV2Error.invalidContinuationToken }
        let username = try request.username()
        guard let user = request.user(named: username, in: tenant) else { throw NativeAuthV2Error.userNotFound(tenant) }
        if let problem = NativeAuthError.accountProblem(user) { throw NativeAuthV2Error(problem) }
        flow.username = username
        flow.userID = user.id
        return (flow, user)
    }

    /// `auth/methods/{type}/{id}/challenge`, also the resend link: a code mailed (the last one stops
    /// working), or the password asked for.
    static func challenge(_ request: NativeAuthV2Request, tenant: Tenant, type: String, id: String) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        let secondFactor = [.mfaMethodsListed, .mfaCodeSent].contains(flow.step)
        guard [.started, .codeSent, .passwordRequired, .mfaMethodsListed, .mfaCodeSent].contains(flow.step) else { throw NativeAuthV2Error.invalidContinuationToken }
        let user = request.user(id: flow.userID)
        switch type {
        case "password" where !secondFactor && flow.kind == .signIn && user.map { !$0.password.isEmpty && !tenant.externalUserFlow.signsInWithCode($0) } == true:
            return try request.hal(flow, on: .passwordAsked, [
                "state": .string("interactionRequired"), "action": .string("verify"), "id": .string(id), "type": .string("password"),
                "_links": .object([("verify", request.link(tenant, "auth/methods/password/\(id)/verify"))]),
            ])
        case "email":
            let address = user?.mail ?? flow.username
            (flow.code, flow.codeExpiresAt) = request.exchange.service.outbox.mailCode(to: address, purpose: flow.kind.mailPurpose, now: request.now)
            return try request.hal(flow, on: .codeSent, codeSent(request, tenant: tenant, type: "email", id: id, hint: NativeAuthEndpoints.masked(address)))
        case "sms" where secondFactor || (flow.kind == .resetPassword && [.started, .codeSent].contains(flow.step)):
            guard let phone = user.flatMap(NativeAuthEndpoints.textablePhone(of:)) else { throw NativeAuthV2Error.missing("method") }
            return try textCode(request, tenant: tenant, flow: flow, phone: phone, secondFactor: secondFactor)
        default:
            throw NativeAuthV2Error.missing("method")
        }
    }

    /// What an answer says when a code went out (SignInV2.spec.ts `EMAIL_CHALLENGE_RESPONSE`).
    /// (A text's adds the journey's `scenario`, as SMS_RISK_VERIFY_RESPONSE does.)
    static func codeSent(_ request: NativeAuthV2Request, tenant: Tenant, type: String, id: String, hint: String, scenario: String? = nil) -> [(String, JSONValue)] {
        [("state", .string("interactionRequired")), ("action", .string("verify"))]
            + (scenario.map { [("scenario", JSONValue.string($0))] } ?? [])
            + [
                ("id", .string(id)), ("type", .string(type)), ("codeLength", .int(NativeAuthFlows.codeLength)), ("hint", .string(hint)),
                ("payload", .object([("codeLength", .int(NativeAuthFlows.codeLength))])),
                ("_links", .object([
                    ("verify", request.link(tenant, "auth/methods/\(type)/\(id)/verify")), ("resend", request.link(tenant, "auth/methods/\(type)/\(id)/challenge")),
                ])),
            ]
    }

    /// `auth/methods/{type}/{id}/verify`: the password or the code. Then the journey's next step: a second
    /// factor, the new password of a reset, the rest of a sign-up, or `continue`.
    static func verify(_ request: NativeAuthV2Request, tenant: Tenant, type: String, id: String) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        let body = try request.body()
        switch flow.step {
        case .passwordRequired:
            guard let user = request.user(id: flow.userID), let password = body["password"]?.string else { throw NativeAuthV2Error.invalidPassword }
            let signedIn: DirectoryUser
            switch PasswordSubmit(request.exchange).check(password, of: user, signInName: flow.username,
                                                             client: request.exchange.service.currentDirectory.application(clientID: flow.clientID)) {
            case .accepted(let checked): signedIn = checked
            case .refused: throw NativeAuthV2Error.invalidPassword
            case .blocked: throw NativeAuthV2Error(NativeAuthError(.refusing(.locked)))
            case .failed: throw NativeAuthV2Error(NativeAuthError(.customExtensionFailed()))
            }
            flow.firstFactor = "pwd"
            return try Self.signedIn(request, tenant: tenant, flow: flow, user: signedIn)
        case .codeSent, .mfaCodeSent:
            guard let otp = body["otp"]?.string, Outbox.accepts(otp, code: flow.code, expiresAt: flow.codeExpiresAt, now: request.now) else {
                throw NativeAuthV2Error.invalidCode
            }
            flow.code = nil
            switch flow.kind {
            case .signIn:
                if flow.step == .mfaCodeSent { flow.secondFactorPassed = true } else { flow.firstFactor = "otp" }
                guard let user = request.user(id: flow.userID) else { throw NativeAuthV2Error.invalidContinuationToken }
                return try signedIn(request, tenant: tenant, flow: flow, user: user)
            case .resetPassword:
                return try request.hal(flow, on: .addressProven, [
                    "state": .string("interactionRequired"), "action": .string("update"), "scenario": .string("recovery"),
                    "_links": .object([("update", request.link(tenant, "resetpassword/update"))]),
                ])
            case .signUp:
                return try signUpProgress(request, tenant: tenant, flow: flow)
            }
        default:
            throw NativeAuthV2Error.invalidContinuationToken
        }
    }

    /// The first factor (or the second) passed: a second factor if the user needs one, else `continue`.
    static func signedIn(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow, user: DirectoryUser) throws(NativeAuthV2Error) -> HTTPResponse {
        if let problem = NativeAuthError.accountProblem(user) { throw NativeAuthV2Error(problem) }
        if !flow.secondFactorPassed, NativeAuthStrongAuth.needsSecondFactor(user, directives: request.exchange.directives) {
            if !user.mfaRegistered { return try registrationRequired(request, tenant: tenant, flow: flow, user: user) }
            let methods = codeMethods(request, tenant: tenant, user: user, suffix: "-mfa")
            guard !methods.isEmpty else { return try request.webFallback(flow) }
            return try request.hal(flow, on: .secondFactorDemanded(registered: true), [
                "state": .string("interactionRequired"), "action": .string("challenge"),
                "challengeContext": .object([("authenticationFactor", .string("multiFactor"))]),
                "_embedded": .object([("methods", .array(methods))]),
            ])
        }
        return try request.continueJourney(flow, tenant: tenant)
    }

    // MARK: - Password reset

    static func resetPasswordStart(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        let (flow, user) = try begin(request, tenant: tenant)
        let methods = user.password.isEmpty ? [] : codeMethods(request, tenant: tenant, user: user, suffix: "")
        guard !methods.isEmpty else { return try request.webFallback(flow) }
        return try request.hal(flow, on: .journeyChosen(.resetPassword), [
            "state": .string("interactionRequired"), "action": .string("challenge"), "scenario": .string("recovery"),
            "challengeContext": .object([("authenticationFactor", .string("singleFactor"))]),
            "_embedded": .object([("methods", .array(methods))]),
        ])
    }

    /// `PUT resetpassword/update {"newPassword"}`: the password rules, then the change is polled for.
    static func updatePassword(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        guard request.exchange.request.method == "PUT" else { throw NativeAuthV2Error(NativeAuthError(.methodNotAllowed(request.exchange.request.method))) }
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .newPasswordRequired, flow.kind == .resetPassword, let user = request.user(id: flow.userID) else { throw NativeAuthV2Error.invalidContinuationToken }
        guard let password = try request.body()["newPassword"]?.string else { throw NativeAuthV2Error.missing("newPassword") }
        do throws(NativeAuthError) {
            try PasswordPolicy.check(password, tenant: tenant, names: [user.givenName, user.surname])
        } catch {
            throw NativeAuthV2Error.passwordTooWeak(error.error.message)
        }
        // The change itself as V1's and the pages': an account that may sign in, not the current password, one step.
        do throws(NativeAuthError) {
            try PasswordPolicy.reset(userID: user.id, to: password, in: request.exchange.service, tenant: tenant, now: request.now)
        } catch {
            throw NativeAuthV2Error.stepRefusal(error)
        }
        flow.firstFactor = "pwd"
        return try request.hal(flow, on: .newPasswordSubmitted, [
            "state": .string("interactionRequired"), "action": .string("poll"), "scenario": .string("recovery"),
            "_links": .object([("poll", request.link(tenant, "resetpassword/poll"))]),
        ])
    }

    /// The change is applied at once: the first poll says `continue` (every client polls at most five times).
    static func poll(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        let flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .resetSubmitted else { throw NativeAuthV2Error.invalidContinuationToken }
        return try request.continueJourney(flow, tenant: tenant)
    }

    // MARK: - Sign-up

    static func signUpStart(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .started, flow.userID == nil else { throw NativeAuthV2Error.invalidContinuationToken }
        // An earlier MSAL for iOS sends the address here; the current clients give it as an attribute.
        if let username = try request.body()["username"]?.string, !username.isEmpty { flow.username = username }
        return try request.hal(flow, on: .journeyChosen(.signUp), collectAttributes(request, tenant: tenant, flow: flow))
    }

    /// What sign-up still needs: the address, the password (when the user flow keeps one), the attributes.
    static func collectAttributes(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow) -> [(String, JSONValue)] {
        let userFlow = tenant.externalUserFlow
        var attributes: [JSONValue] = []
        func attribute(_ id: String, _ input: String, _ label: String, required: Bool) {
            attributes.append(.object([("attributeId", .string(id)), ("inputType", .string(input)), ("required", .bool(required)),
                                       ("canChange", .bool(true)), ("label", .string(label))]))
        }
        if flow.username.isEmpty { attribute("email", "text", "Email Address", required: true) }
        if flow.password == nil, userFlow.allowsPassword(appCanAsk: true) { attribute("password", "password", "Password", required: true) }
        for item in userFlow.attributes where flow.attributes[item.name] == nil {
            attribute(item.name, item.type == .boolean ? "checkbox" : "text", item.displayLabel, required: item.required)
        }
        return [
            ("state", .string("interactionRequired")), ("action", .string("collectAttributes")), ("attributes", .array(attributes)),
            ("_links", .object([("submitAttributes", .object([("href", .string("\(request.base(tenant))/signup/submitattributes")), ("name", .string("submitAttributes"))]))])),
        ]
    }

    /// `signup/submitattributes`: the address (first time), password and attributes, checked by the user
    /// flow's rules; then the address is proved with a mailed code, or the account is made.
    static func submitAttributes(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.kind == .signUp, [.attributesRequired, .credentialRequired].contains(flow.step) else { throw NativeAuthV2Error.invalidContinuationToken }
        let body = try request.body()
        var submitted: [String: String] = [:]
        for member in body["attributes"]?.members ?? [] {
            guard let text = member.value.scalarText else { continue }
            guard text.utf8.count <= 1024 else { throw NativeAuthV2Error.attributes("attributeValidationError", [(member.key, "attributeInvalid", "Attribute '\(member.key)' is too long.")]) }
            submitted[member.key] = text
        }
        let userFlow = tenant.externalUserFlow
        if flow.username.isEmpty {
            guard let email = submitted.first(where: { $0.key.lowercased() == "email" })?.value, EmailAddress.isValid(email) else {
                throw NativeAuthV2Error.attributes("attributeValidationError", [("email", "attributeRequired", "Attribute 'email' is required.")])
            }
            flow.username = email
        }
        if request.user(named: flow.username, in: tenant) != nil {
            throw NativeAuthV2Error.userAlreadyExists
        }
        if let password = submitted.first(where: { $0.key.lowercased() == "password" })?.value {
            do throws(NativeAuthError) {
                try PasswordPolicy.check(password, tenant: tenant, names: [submitted["givenName"], submitted["surname"]])
            } catch {
                throw NativeAuthV2Error.passwordAttributeRefused(error.error.message)
            }
            flow.password = password
        }
        for (name, value) in submitted where !["email", "password"].contains(name.lowercased()) { flow.attributes[name] = value }
        if let invalid = userFlow.invalidAttributes(in: flow.attributes).first {
            throw NativeAuthV2Error.attributes("attributeValidationError", [(invalid.name, "attributeInvalid", "Please enter a valid \(invalid.displayLabel).")])
        }
        if flow.step == .attributesRequired {
            // The address is proved first: the answer says the code went out.
            (flow.code, flow.codeExpiresAt) = request.exchange.service.outbox.mailCode(to: flow.username, purpose: .signUp, now: request.now)
            return try request.hal(flow, on: .codeSent, codeSent(request, tenant: tenant, type: "email", id: "email", hint: NativeAuthEndpoints.masked(flow.username)))
        }
        return try signUpProgress(request, tenant: tenant, flow: flow)
    }

    /// After the address is proved: what is still missing, or the account made and `continue`.
    static func signUpProgress(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = flow
        let userFlow = tenant.externalUserFlow
        let needsPassword = flow.password == nil && userFlow.allowsPassword(appCanAsk: true)
        if needsPassword || !userFlow.missingAttributes(in: flow.attributes).isEmpty {
            return try request.hal(flow, on: .attributesAsked, collectAttributes(request, tenant: tenant, flow: flow))
        }
        let created = request.exchange.service.directory.withLock { directory in
            directory.addCustomer(email: flow.username, attributes: userFlow.collected(from: flow.attributes), password: flow.password ?? "", tenant: tenant)
        }
        guard let created else {
            throw NativeAuthV2Error.userAlreadyExists
        }
        flow.userID = created.id
        flow.firstFactor = flow.password == nil ? "otp" : "pwd"
        return try request.continueJourney(flow, tenant: tenant)
    }
}

extension NativeAuthFlow {
    /// The authentication methods of the finished journey, as its tokens name them (`amr`).
    var methods: [String] {
        let first = firstFactor ?? "pwd"
        return secondFactorPassed ? [first, "mfa"] : [first]
    }
}
