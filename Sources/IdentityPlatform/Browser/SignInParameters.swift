import ExchangeKernel
package import FoundationGaps

/// The /authorize parameters every browser flow reads one way, Entra's and B2C's: what the flow may show
/// (`prompt`), who is expected (`login_hint`), how old a sign-in may be (`max_age`), and the nonce and PKCE
/// challenge the code carries. Each service refuses a bad value in its own words and limits (`Dialect`).
package struct SignInParameters: Sendable {
    package var prompt: Prompt?
    package var loginHint: String?
    package var maxAge: MaxAge?
    package var nonce: String?
    package var codeChallenge: String?
    package var codeChallengeMethod: String?

    /// How a service words its refusals, and what it accepts.
    package struct Dialect: Sendable {
        package var prompts: Set<Prompt>
        package var maxAgeLimit: Int
        package var invalidPrompt: @Sendable (String) -> IdentityError
        package var invalidMaxAge: @Sendable (String) -> IdentityError
        package var invalidChallengeMethod: @Sendable (String) -> IdentityError
        /// The refusal of a challenge outside RFC 7636's 43 to 128 characters; nil where the service does not
        /// check them (B2C).
        package var invalidChallengeSize: (@Sendable () -> IdentityError)?
        package var missingParameter: @Sendable (String) -> IdentityError

        package init(prompts: Set<Prompt>, maxAgeLimit: Int,
                     invalidPrompt: @escaping @Sendable (String) -> IdentityError, invalidMaxAge: @escaping @Sendable (String) -> IdentityError,
                     invalidChallengeMethod: @escaping @Sendable (String) -> IdentityError, invalidChallengeSize: (@Sendable () -> IdentityError)?,
                     missingParameter: @escaping @Sendable (String) -> IdentityError) {
            self.prompts = prompts
            self.maxAgeLimit = maxAgeLimit
            self.invalidPrompt = invalidPrompt
            self.invalidMaxAge = invalidMaxAge
            self.invalidChallengeMethod = invalidChallengeMethod
            self.invalidChallengeSize = invalidChallengeSize
            self.missingParameter = missingParameter
        }

        /// Entra ID (v1 and v2): every prompt, any whole `max_age`, RFC 7636's challenge lengths.
        static let entra = Dialect(
            prompts: Set(Prompt.allCases), maxAgeLimit: .max,
            invalidPrompt: { .invalidPrompt($0) }, invalidMaxAge: { .invalidMaxAge($0) },
            invalidChallengeMethod: { .invalidCodeChallengeMethod($0) }, invalidChallengeSize: { .invalidCodeChallengeSize() },
            missingParameter: { .missingParameter($0) }
        )
    }

    /// Reads the parameters in the service's order: prompt, then max_age, then the PKCE challenge.
    package init(_ p: [String: String], dialect: Dialect) throws(IdentityError) {
        func value(_ name: String) -> String? { p[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let text = value("prompt") {
            guard let parsed = Prompt(rawValue: text.lowercased()), dialect.prompts.contains(parsed) else { throw dialect.invalidPrompt(text) }
            prompt = parsed
        }
        if let text = value("max_age") {
            guard let parsed = MaxAge(parameter: text, limit: dialect.maxAgeLimit) else { throw dialect.invalidMaxAge(text) }
            maxAge = parsed
        }
        let method = value("code_challenge_method")
        if let challenge = value("code_challenge") {
            // RFC 7636 §4.2: plain unless stated.
            let stated = method ?? "plain"
            guard stated == "S256" || stated == "plain" else { throw dialect.invalidChallengeMethod(stated) }
            if let invalidSize = dialect.invalidChallengeSize, !(43...128).contains(challenge.count) { throw invalidSize() }
            codeChallenge = challenge
            codeChallengeMethod = stated
        } else if method != nil {
            throw dialect.missingParameter("code_challenge")
        }
        loginHint = value("login_hint")
        nonce = p["nonce"]
    }
}

/// A validated /authorize request (Entra's `AuthorizationRequest`, B2C's `B2CAuthorizationRequest`) reads
/// these parameters from the one `SignInParameters`.
package protocol SignInRequest {
    var signIn: SignInParameters { get }
}

extension SignInRequest {
    package var prompt: Prompt? { signIn.prompt }
    package var loginHint: String? { signIn.loginHint }
    package var maxAge: MaxAge? { signIn.maxAge }
    package var nonce: String? { signIn.nonce }
    package var codeChallenge: String? { signIn.codeChallenge }
    package var codeChallengeMethod: String? { signIn.codeChallengeMethod }

    /// `max_age`: an earlier authentication older than this must be repeated.
    package func demandsSignIn(authenticatedAt authTime: Date, now: Date) -> Bool {
        maxAge?.demandsSignIn(authenticatedAt: authTime, now: now) ?? false
    }
}

/// OIDC `max_age`: how old the last authentication may be before the user must sign in again. Checked one
/// way for every flow, Entra's and B2C's: `max_age=0` always asks again, any other value when the last
/// authentication is older than that many seconds.
package struct MaxAge: Sendable, Equatable {
    package var seconds: Int

    /// A non-negative whole number no larger than `limit` (B2C documents 2147483647), else nil.
    package init?(parameter text: String, limit: Int = .max) {
        guard let seconds = Int(text), seconds >= 0, seconds <= limit else { return nil }
        self.seconds = seconds
    }

    package func demandsSignIn(authenticatedAt authTime: Date, now: Date) -> Bool {
        seconds == 0 || now.timeIntervalSince(authTime) > TimeInterval(seconds)
    }
}
