import EntraHTTP
import ExchangeKernel
import FoundationGaps
import LocatedJSON

/// Codes by text message in native authentication V2: a password reset's first factor or a sign-in's
/// second, never a sign-in's first (MSAL for iOS's `isSupportedForSignIn` is email or password). The
/// method's challenge first answers `action: riskverify`; the client posts the continuation token to that
/// link, and only then is the code sent, answered as any code (`action: verify` with `type: sms`, the
/// masked number and the code's length). A resend once the phone passed sends at once: a second
/// `riskverify` in a row is an error to MSAL for iOS. Shapes from msal-browser's SignInV2.spec.ts and
/// ResetPasswordV2.spec.ts (`SMS_MFA_CHALLENGE_RESPONSE`, `SMS_RISK_VERIFY_RESPONSE`) and its
/// CustomAuthApiClientV2 (`verifyRisk` wants `action: verify` and `type: sms`).
extension NativeAuthV2 {
    /// The methods that send a code to this user, as `_embedded.methods` lists them: the email address,
    /// then the mobile phone. `suffix` tells a second factor's ids (`email-mfa`, `sms-mfa`) apart.
    static func codeMethods(_ request: NativeAuthV2Request, tenant: Tenant, user: DirectoryUser, suffix: String) -> [JSONValue] {
        var methods: [JSONValue] = []
        if let mail = user.mail { methods.append(request.codeMethod(tenant, type: "email", id: "email\(suffix)", hint: NativeAuthEndpoints.masked(mail))) }
        if let phone = NativeAuthEndpoints.textablePhone(of: user) {
            methods.append(request.codeMethod(tenant, type: "sms", id: "sms\(suffix)", hint: NativeAuthEndpoints.maskedPhone(phone)))
        }
        return methods
    }

    /// The text-message method's challenge: the phone check first, or the code again once it passed.
    static func textCode(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow, phone: String, secondFactor: Bool) throws(NativeAuthV2Error) -> HTTPResponse {
        guard flow.phoneChecked else {
            return try request.hal(flow, on: .phoneCheckAsked, [
                "state": .string("interactionRequired"), "action": .string("riskverify"),
                "_links": .object([("riskverify", request.link(tenant, "risk/phone/verify"))]),
            ])
        }
        return try sendText(request, tenant: tenant, flow: flow, phone: phone, secondFactor: secondFactor)
    }

    /// `POST risk/phone/verify {"continuationToken"}`: the check passes and the code goes out.
    static func phoneCheck(_ request: NativeAuthV2Request, tenant: Tenant) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = try request.flow(try request.continuationToken(), tenant: tenant)
        guard flow.step == .phoneCheckRequired, let user = request.user(id: flow.userID) else { throw NativeAuthV2Error.invalidContinuationToken }
        // The phone may have changed since the method was offered: the code goes only to a number a text can reach.
        guard let phone = NativeAuthEndpoints.textablePhone(of: user) else { throw NativeAuthV2Error.missing("method") }
        flow.phoneChecked = true
        // Which code this is (a sign-in's second factor or a reset's first) is the flow's to say.
        return try sendText(request, tenant: tenant, flow: flow, phone: phone, secondFactor: flow.after(.codeSent)?.step == .mfaCodeSent)
    }

    static func sendText(_ request: NativeAuthV2Request, tenant: Tenant, flow: NativeAuthFlow, phone: String, secondFactor: Bool) throws(NativeAuthV2Error) -> HTTPResponse {
        var flow = flow
        let id = secondFactor ? "sms-mfa" : "sms"
        (flow.code, flow.codeExpiresAt) = request.exchange.service.outbox.mailCode(to: phone, purpose: secondFactor ? .mfa : flow.kind.mailPurpose, now: request.now)
        return try request.hal(flow, on: .codeSent,
                               codeSent(request, tenant: tenant, type: "sms", id: id, hint: NativeAuthEndpoints.maskedPhone(phone),
                                        scenario: secondFactor ? "signin" : "recovery"))
    }
}
