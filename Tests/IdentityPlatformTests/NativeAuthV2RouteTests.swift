import EntraHTTP
import ExchangeKernel
import IdentityPlatform
import Testing

/// Native authentication V2's paths: the fixed authorization challenge, and the steps FakeEntra links to
/// under `/{tenant}/api/v2.0/` (method ids keep their case; anything else under it is no route).
@Suite struct NativeAuthV2RouteTests {
    func endpoint(_ path: String) -> EntraRoute.Endpoint? {
        EntraRoute.parse(HTTPRequest(method: "POST", target: path, headers: ["Host": "127.0.0.1:8443"]))?.endpoint
    }

    @Test func theStepsParse() {
        let tenant = "/8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"
        #expect(endpoint(tenant + "/oauth2/v2.0/authorize-challenge") == .nativeAuthV2(.authorizeChallenge))
        #expect(endpoint(tenant + "/api/v2.0/signin/start") == .nativeAuthV2(.signInStart))
        #expect(endpoint(tenant + "/api/v2.0/SignUp/Start") == .nativeAuthV2(.signUpStart))
        #expect(endpoint(tenant + "/api/v2.0/resetpassword/update") == .nativeAuthV2(.updatePassword))
        #expect(endpoint(tenant + "/api/v2.0/auth/methods/email/Email-MFA/challenge") == .nativeAuthV2(.methodChallenge(type: "email", id: "Email-MFA")))
        #expect(endpoint(tenant + "/api/v2.0/auth/methods/password/password/verify") == .nativeAuthV2(.methodVerify(type: "password", id: "password")))
        #expect(endpoint(tenant + "/api/v2.0/auth/methods/email") == nil)
        #expect(endpoint(tenant + "/api/v0.1/signin/start") == nil, "FakeEntra links to v2.0 only")
    }
}
