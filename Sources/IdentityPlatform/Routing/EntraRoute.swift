package import ExchangeKernel
package import EntraHTTP

/// Which Entra endpoint a request path names, before the tenant segment is resolved.
package struct EntraRoute: Sendable, Equatable {
    package enum Endpoint: Sendable, Equatable {
        case instanceDiscovery
        case openIDConfiguration(EndpointVersion)
        case keys(EndpointVersion)
        case authorize(EndpointVersion)
        case token(EndpointVersion)
        case deviceCode(EndpointVersion)
        case logout(EndpointVersion)
        case userRealm(String)
        /// The page where a person types a device code (`verification_uri`).
        case deviceLogin
        /// The page `error_uri` points at.
        case errorLookup
        /// External ID's native authentication API: an app's own screens sign users in, up and through
        /// password reset, without a browser.
        case nativeAuth(NativeAuthEndpoint)
        /// Native authentication V2 (preview): the authorization challenge and the steps it links to.
        case nativeAuthV2(NativeAuthV2Step)

        /// The protocol version the endpoint speaks (v2.0 for those that have one form only).
        package var version: EndpointVersion {
            switch self {
            case .openIDConfiguration(let version), .keys(let version), .authorize(let version), .token(let version), .deviceCode(let version), .logout(let version): version
            case .instanceDiscovery, .userRealm, .deviceLogin, .errorLookup, .nativeAuth, .nativeAuthV2: .v2
            }
        }
    }

    /// `common`, `organizations`, `consumers`, a tenant GUID or a domain, as written in the path.
    package var tenantSegment: String
    package var endpoint: Endpoint

    package init(tenantSegment: String, endpoint: Endpoint) {
        self.tenantSegment = tenantSegment
        self.endpoint = endpoint
    }

    /// Parses `/{tenant}/oauth2/v2.0/token` and its siblings; nil when the path is not an Entra endpoint.
    package static func parse(_ request: HTTPRequest) -> EntraRoute? {
        let segments = request.pathSegments
        guard let first = segments.first else { return nil }
        if segments.count == 1 {
            switch first.fastLowercased {
            case "devicelogin": return EntraRoute(tenantSegment: "common", endpoint: .deviceLogin)
            case "error": return EntraRoute(tenantSegment: "common", endpoint: .errorLookup)
            default: return nil
            }
        }
        let tenant = first
        let rest = segments.dropFirst().map { $0.fastLowercased }
        let endpoint: Endpoint? = switch rest {
        case ["discovery", "instance"]: .instanceDiscovery
        case ["v2.0", ".well-known", "openid-configuration"]: .openIDConfiguration(.v2)
        case [".well-known", "openid-configuration"]: .openIDConfiguration(.v1)
        case ["discovery", "v2.0", "keys"]: .keys(.v2)
        case ["discovery", "keys"]: .keys(.v1)
        case ["oauth2", "v2.0", "authorize"]: .authorize(.v2)
        case ["oauth2", "authorize"]: .authorize(.v1)
        case ["oauth2", "v2.0", "token"]: .token(.v2)
        case ["oauth2", "token"]: .token(.v1)
        case ["oauth2", "v2.0", "initiate"]: .nativeAuth(.signInInitiate)
        case ["oauth2", "v2.0", "challenge"]: .nativeAuth(.signInChallenge)
        case ["oauth2", "v2.0", "introspect"]: .nativeAuth(.signInIntrospect)
        case ["register", "v1.0", "introspect"]: .nativeAuth(.registerIntrospect)
        case ["register", "v1.0", "challenge"]: .nativeAuth(.registerChallenge)
        case ["register", "v1.0", "continue"]: .nativeAuth(.registerContinue)
        case ["signup", "v1.0", "start"]: .nativeAuth(.signUpStart)
        case ["signup", "v1.0", "challenge"]: .nativeAuth(.signUpChallenge)
        case ["signup", "v1.0", "continue"]: .nativeAuth(.signUpContinue)
        case ["resetpassword", "v1.0", "start"]: .nativeAuth(.resetPasswordStart)
        case ["resetpassword", "v1.0", "challenge"]: .nativeAuth(.resetPasswordChallenge)
        case ["resetpassword", "v1.0", "continue"]: .nativeAuth(.resetPasswordContinue)
        case ["resetpassword", "v1.0", "submit"]: .nativeAuth(.resetPasswordSubmit)
        case ["resetpassword", "v1.0", "poll_completion"]: .nativeAuth(.resetPasswordPollCompletion)
        case ["oauth2", "v2.0", "authorize-challenge"]: .nativeAuthV2(.authorizeChallenge)
        case _ where rest.count > 2 && rest[0] == "api" && rest[1] == "v2.0": NativeAuthV2Step(path: Array(segments.dropFirst(3))).map(Endpoint.nativeAuthV2)
        case ["oauth2", "v2.0", "devicecode"]: .deviceCode(.v2)
        case ["oauth2", "devicecode"]: .deviceCode(.v1)
        case ["oauth2", "v2.0", "logout"]: .logout(.v2)
        case ["oauth2", "logout"]: .logout(.v1)
        default: nil
        }
        if let endpoint { return EntraRoute(tenantSegment: tenant, endpoint: endpoint) }
        // `/common/userrealm/{user}`: the user keeps its original case.
        if rest.count == 2, rest[0] == "userrealm" {
            return EntraRoute(tenantSegment: tenant, endpoint: .userRealm(segments[2]))
        }
        return nil
    }
}

/// The Entra endpoint generation a request used: v2.0 (`/oauth2/v2.0/…`, scopes) or v1 (`resource`).
package enum EndpointVersion: String, Sendable, Codable { case v1, v2 }

/// The native authentication API's endpoints (learn.microsoft.com, "Native authentication API reference";
/// MSAL for iOS/macOS's `MSALNativeAuthEndpoint`), each under `/{tenant}/`.
package enum NativeAuthEndpoint: String, Sendable, Equatable {
    case signInInitiate = "oauth2/v2.0/initiate"
    case signInChallenge = "oauth2/v2.0/challenge"
    case signInIntrospect = "oauth2/v2.0/introspect"
    case registerIntrospect = "register/v1.0/introspect"
    case registerChallenge = "register/v1.0/challenge"
    case registerContinue = "register/v1.0/continue"
    case signUpStart = "signup/v1.0/start"
    case signUpChallenge = "signup/v1.0/challenge"
    case signUpContinue = "signup/v1.0/continue"
    case resetPasswordStart = "resetpassword/v1.0/start"
    case resetPasswordChallenge = "resetpassword/v1.0/challenge"
    case resetPasswordContinue = "resetpassword/v1.0/continue"
    case resetPasswordSubmit = "resetpassword/v1.0/submit"
    case resetPasswordPollCompletion = "resetpassword/v1.0/poll_completion"
}

/// A step of native authentication V2, whose paths the service hands out as links (`_links.<rel>.href`),
/// so only the authorization challenge has a fixed one. FakeEntra links to these paths under
/// `/{tenant}/api/v2.0/`, as Microsoft's reference examples name them.
package enum NativeAuthV2Step: Sendable, Equatable {
    case authorizeChallenge
    case signInStart, signUpStart, resetPasswordStart
    /// `auth/methods/{type}/{id}/challenge`: send the method's challenge (a code mailed; a password asked).
    case methodChallenge(type: String, id: String)
    /// `auth/methods/{type}/{id}/verify`: the code or password the user gave.
    case methodVerify(type: String, id: String)
    /// `auth/methods/{type}/{id}/register`: a second factor's contact to register (MSAL for iOS's `enroll`).
    case methodRegister(type: String, id: String)
    /// `auth/methods/{type}/{id}/activate`: the code sent to the contact being registered.
    case methodActivate(type: String, id: String)
    case submitAttributes, updatePassword, poll
    /// `risk/phone/verify`: the phone check before a code goes out by text message (msal-browser's
    /// `verifyRisk`, MSAL for iOS's `riskVerify`).
    case phoneCheck

    /// The path after `api/v2.0/`, as written; nil for a path FakeEntra never links to.
    init?(path: [String]) {
        let lowered = path.map { $0.lowercased() }
        switch lowered {
        case ["signin", "start"]: self = .signInStart
        case ["signup", "start"]: self = .signUpStart
        case ["resetpassword", "start"]: self = .resetPasswordStart
        case ["signup", "submitattributes"]: self = .submitAttributes
        case ["resetpassword", "update"]: self = .updatePassword
        case ["resetpassword", "poll"]: self = .poll
        case ["risk", "phone", "verify"]: self = .phoneCheck
        case _ where lowered.count == 5 && lowered[0] == "auth" && lowered[1] == "methods" && lowered[4] == "challenge":
            self = .methodChallenge(type: lowered[2], id: path[3])
        case _ where lowered.count == 5 && lowered[0] == "auth" && lowered[1] == "methods" && lowered[4] == "verify":
            self = .methodVerify(type: lowered[2], id: path[3])
        case _ where lowered.count == 5 && lowered[0] == "auth" && lowered[1] == "methods" && lowered[4] == "register":
            self = .methodRegister(type: lowered[2], id: path[3])
        case _ where lowered.count == 5 && lowered[0] == "auth" && lowered[1] == "methods" && lowered[4] == "activate":
            self = .methodActivate(type: lowered[2], id: path[3])
        default: return nil
        }
    }
}

extension EntraRoute: ServiceRoute {
    package static var service: ServiceName { .entra }

    package var pathTenant: String? { tenantSegment }

    package var journalKind: String {
        switch endpoint {
        case .instanceDiscovery: "instance_discovery"
        case .openIDConfiguration: "openid_configuration"
        case .keys: "keys"
        case .authorize: "authorize"
        case .token: "token"
        case .deviceCode: "device_code"
        case .logout: "logout"
        case .userRealm: "user_realm"
        case .deviceLogin: "device_login"
        case .errorLookup: "error_lookup"
        case .nativeAuth, .nativeAuthV2: "native_auth"
        }
    }

    /// V1: where the clients read `challenge_type: redirect`: each journey's start and challenge (the API
    /// reference), the sign-in's introspect and the sign-up's continue (MSAL Android's
    /// SignInIntrospectApiResult.Redirect and SignUpContinueApiResult.Redirect).
    /// V2: every step the authorization challenge linked to (it only opens and closes a journey).
    package var handsJourneyToBrowser: Bool {
        switch endpoint {
        case .nativeAuth(.signInInitiate), .nativeAuth(.signInChallenge), .nativeAuth(.signInIntrospect), .nativeAuth(.signUpStart),
             .nativeAuth(.signUpChallenge), .nativeAuth(.signUpContinue), .nativeAuth(.resetPasswordStart), .nativeAuth(.resetPasswordChallenge):
            true
        case .nativeAuthV2(let step): step != .authorizeChallenge
        default: false
        }
    }

    package var ruleEndpoint: EndpointKind {
        switch endpoint {
        case .instanceDiscovery: .discovery
        case .openIDConfiguration: .metadata
        case .keys: .keys
        case .authorize: .authorize
        case .token: .token
        case .deviceCode: .devicecode
        case .logout: .logout
        case .userRealm: .userrealm
        case .deviceLogin: .devicelogin
        case .errorLookup: .other
        case .nativeAuth, .nativeAuthV2: .nativeauth
        }
    }
}

/// Entra's endpoints: `/{tenant}/oauth2/v2.0/token` and its siblings, the last routes the application
/// asks (a B2C tenant's policy paths and Graph's are claimed before).
package struct EntraRoutes: RouteCollection {
    package init() {}

    package func route(_ request: HTTPRequest) -> (any ServiceRoute)? { EntraRoute.parse(request) }
}
