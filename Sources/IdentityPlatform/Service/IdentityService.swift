import EntraCrypto
import Foundation
import Synchronization

/// How the platform behaves where the real service would depend on tenant settings.
public struct IdentityOptions: Sendable, Equatable {
    /// Accept only configured apps (AADSTS700016 otherwise). Lenient by default.
    public var strict: Bool = false
    /// Sign in the `login_hint` user (or the only user) and consent without showing pages (CI).
    public var autoLogin: Bool = false
    public var accessTokenLifetime: TimeInterval = 3599
    /// `ext_expires_in` minus `expires_in`: how long a token stays usable during an outage.
    public var accessTokenExtension: TimeInterval = 3600
    public var idTokenLifetime: TimeInterval = 3600
    /// Refresh tokens expire after this much inactivity (Entra: 90 days).
    public var refreshTokenInactivity: TimeInterval = 90 * 86400
    public var authorizationCodeLifetime: TimeInterval = 600
    public var deviceCodeLifetime: TimeInterval = 900
    public var deviceCodePollingInterval: Int = 5
    /// Pages (sign-in, consent) must be completed within this time.
    public var interactiveFlowLifetime: TimeInterval = 3600

    public init() {}
}

/// The signing keys: the current one signs, every one listed verifies and is published in JWKS.
public final class SigningKeyRing: Sendable {
    private let credentials: Mutex<[SigningCredential]>

    public init(current: SigningCredential) { credentials = Mutex([current]) }

    public var current: SigningCredential { credentials.withLock { $0[0] } }

    /// Published in JWKS and accepted when validating tokens.
    public var published: [SigningCredential] { credentials.withLock { $0 } }

    /// Signs with a new key; the old one is dropped (as after a rollover, tokens it signed stop validating).
    public func roll(to credential: SigningCredential, keepingPrevious: Bool = false) {
        credentials.withLock { list in
            list = keepingPrevious ? [credential] + list : [credential]
        }
    }

    public func credential(keyID: String) -> SigningCredential? {
        credentials.withLock { list in list.first { $0.keyID == keyID } }
    }
}

/// The identity platform: directory, state, clock and keys, shared by every Entra, B2C and Graph handler.
public final class IdentityService: Sendable {
    public let clock: any TimeSource
    public let options: IdentityOptions
    public let keys: SigningKeyRing
    public let directory: DirectoryCell
    public let state: Mutex<PlatformState>

    public init(directory: Directory, keys: SigningKeyRing, clock: any TimeSource = VirtualClock(), options: IdentityOptions = .init(), limits: StateLimits = .standard) {
        self.clock = clock
        self.options = options
        self.keys = keys
        self.directory = DirectoryCell(directory)
        self.state = Mutex(PlatformState(limits: limits))
    }

    /// A snapshot of the directory for one request's reads.
    public var currentDirectory: Directory { directory.current }
}
