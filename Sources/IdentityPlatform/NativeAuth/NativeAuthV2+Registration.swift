import EntraHTTP
import ExchangeKernel
import FoundationGaps
import LocatedJSON

/// Registering a second factor in native authentication V2, as MSAL for iOS/macOS's V2 branch drives it
/// (AzureAD/microsoft-authentication-library-for-objc, `spetrescu/native-auth-v2`:
/// MSALNativeAuthV2ResponseValidator.swift, MSALNativeAuthFlowController.swift, MSALNativeAuthV2RequestProvider.swift):
/// once the first factor passed, a user who must prove a second and has none registered gets
/// `action: register` with the methods they may register, each with its `register` link; the client posts
/// `{"continuationToken", "target"}` there; a code goes to the target and the answer is `action: activate`
/// (with `hint`, `type`, `codeLength` and the `activate` link); `{"continuationToken", "code"}` posted there
/// registers the method and the journey continues. msal-browser and MSAL for Android do not drive it yet.
/// As in V1, an email is registered only if it is the address the user proved; a phone number is any.
extension NativeAuthV2 {
    static func registrationRequired(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow, user: DirectoryUser) throws(NativeAuthV2Error) -> HTTPResponse {
        let email: JSONValue = .object([
            ("id", .string("email-register")), ("type", .string("email")), ("hint", .string(NativeAuthEndpoints.masked(user.mail ?? flow.username))),
            ("_links", .object([("register", request.link(tenant, "auth/methods/email/email-register/register"))])),
        ])
        let sms: JSONValue = .object([
            ("id", .string("sms-register")), ("type", .string("sms")),
            ("_links", .object([("register", request.link(tenant, "auth/methods/sms/sms-register/register"))])),
        ])
        return try request.hal(flow, on: .secondFactorDemanded(registered: false), [
            "state": .string("interactionRequired"), "action": .string("register"),
            "challengeContext": .object([("authenticationFactor", .string("multiFactor"))]),
            "_links": .object([("register", request.link(tenant, "auth/methods/email/email-register/register"))]),
            "_embedded": .object([("methods", .array([email, sms]))]),
        ])
    }

    /// `auth/methods/{type}/{id}/register {"continuationToken", "target"}`: the code goes to the contact.
    /// Posted again, a new code goes out.
    static func register(_ request: NativeAuthV2Request, tenant: Tenant, type: String) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard [.registrationRequired, .registrationCodeSent].contains(flow.step), let user = request.user(id: flow.userID) else {
            throw NativeAuthV2Error.invalidContinuationToken
        }
        let proven = user.mail ?? flow.username
        let contact: NativeAuthFlow.Contact
        switch type {
        case "email":
            let target = try request.body()["target"]?.string ?? proven
            guard NativeAuthStrongAuth.isRegistrable(email: target, for: user, flow: flow) else { throw NativeAuthV2Error(NativeAuthError(.challengeTargetNotRegistrable())) }
            contact = .init(channel: "email", address: proven)
        case "sms":
            guard let target = try request.body()["target"]?.string, NativeAuthEndpoints.isTextable(target) else { throw NativeAuthV2Error(NativeAuthError(.challengeTargetNotRegistrable())) }
            contact = .init(channel: "sms", address: target)
        default:
            throw NativeAuthV2Error.missing("method")
        }
        flow.registering = contact
        (flow.code, flow.codeExpiresAt) = request.exchange.service.outbox.mailCode(to: contact.address, purpose: .registration, now: request.now)
        let hint = NativeAuthEndpoints.masked(contact.address, channel: contact.channel)
        let id = "\(contact.channel)-register"
        return try request.hal(flow, on: .codeSent, [
            ("state", .string("interactionRequired")), ("action", .string("activate")), ("id", .string(id)), ("type", .string(contact.channel)),
            ("hint", .string(hint)), ("codeLength", .int(NativeAuthFlows.codeLength)),
            ("_links", .object([("activate", request.link(tenant, "auth/methods/\(contact.channel)/\(id)/activate"))])),
        ])
    }

    /// `auth/methods/{type}/{id}/activate {"continuationToken", "code"}`: the method is registered (a phone
    /// becomes the user's mobile phone) and it counts as the second factor.
    static func activate(_ request: NativeAuthV2Request, tenant: Tenant, type: String) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .registrationCodeSent, let contact = flow.registering, contact.channel == type, let userID = flow.userID else {
            throw NativeAuthV2Error.invalidContinuationToken
        }
        guard let code = try request.body()["code"]?.string, Outbox.accepts(code, code: flow.code, expiresAt: flow.codeExpiresAt, now: request.now) else {
            throw NativeAuthV2Error.invalidCode
        }
        flow.code = nil
        flow.secondFactorPassed = true
        // The flow moves on first: a token that lost a race registers nothing.
        let answer = try request.continueJourney(flow, tenant: tenant)
        request.exchange.service.directory.withLock { directory in
            directory.registerSecondFactor(userID: userID, phone: contact.channel == "sms" ? contact.address : nil)
        }
        return answer
    }
}
