package import ExchangeKernel
package import EntraCrypto
package import FoundationGaps
package import Synchronization

/// How the platform behaves where the real service would depend on tenant settings.
package struct IdentityOptions: Sendable, Equatable {
    /// Accept only configured apps (AADSTS700016 otherwise). Lenient by default.
    package var strict: Bool = false
    /// Sign in the `login_hint` user (or the only user) and consent without showing pages (CI).
    package var autoLogin: Bool = false
    package var accessTokenLifetime: TimeInterval = 3599
    /// `ext_expires_in` minus `expires_in`: how long a token stays usable during an outage.
    package var accessTokenExtension: TimeInterval = 3600
    package var idTokenLifetime: TimeInterval = 3600
    /// Refresh tokens expire after this much inactivity (Entra: 90 days).
    package var refreshTokenInactivity: TimeInterval = 90 * 86400
    package var authorizationCodeLifetime: TimeInterval = 600
    package var deviceCodeLifetime: TimeInterval = 900
    package var deviceCodePollingInterval: Int = 5
    /// Pages (sign-in, consent) must be completed within this time.
    package var interactiveFlowLifetime: TimeInterval = 3600
    /// The secret App Service puts in `IDENTITY_HEADER` and its identity endpoint wants back as `X-IDENTITY-HEADER`.
    package var managedIdentityHeader: String = "fakeentra-identity-header"
    /// The person signed in to Cloud Shell, whose tokens its endpoint hands out (a UPN or object id); nil:
    /// the first user of the first organization.
    package var cloudShellUser: String?
    /// How custom authentication extensions are reached (the server's HTTP client; a test's script).
    package var extensionTransport: ExtensionTransportReference = .unreachable

    package init() {}
}

/// The signing keys: the current one signs, every one listed verifies and is published in JWKS.
package final class SigningKeyRing: Sendable {
    private struct Entry {
        var credential: SigningCredential
        /// When a key that no longer signs leaves the JWKS; nil while it is current.
        var retiresAt: Date?

        func isPublished(at now: Date) -> Bool { (retiresAt ?? .distantFuture) > now }
    }

    private let entries: Mutex<[Entry]>

    package init(current: SigningCredential) { entries = Mutex([Entry(credential: current)]) }

    package var current: SigningCredential { entries.withLock { $0[0].credential } }

    /// Published in JWKS and accepted when validating tokens at `now`: the current key, and earlier ones
    /// still within the grace a graceful rollover gave them.
    package func published(at now: Date) -> [SigningCredential] {
        entries.withLock { list in list.compactMap { $0.isPublished(at: now) ? $0.credential : nil } }
    }

    /// The published key `keyID` names at `now`; nil for a key never held or past its grace.
    package func credential(keyID: String, at now: Date) -> SigningCredential? {
        entries.withLock { list in list.first { $0.credential.keyID == keyID && $0.isPublished(at: now) }?.credential }
    }

    /// Signs with a new key; the old keys leave at once, and tokens they signed stop validating.
    package func roll(to credential: SigningCredential) {
        entries.withLock { $0 = [Entry(credential: credential)] }
    }

    /// Signs with a new key and keeps the one that signed until `now` published for `grace` more seconds,
    /// as the service keeps a key it rolled away from in its JWKS while tokens it signed are still in use.
    /// Earlier keys keep their own grace; those past it leave, so repeated rolls do not pile up keys.
    package func roll(to credential: SigningCredential, keepingPreviousFor grace: TimeInterval, now: Date) {
        let retiresAt = now.addingTimeInterval(grace)
        entries.withLock { list in
            let earlier = list.compactMap { entry -> Entry? in
                let retiring = Entry(credential: entry.credential, retiresAt: entry.retiresAt ?? retiresAt)
                return retiring.isPublished(at: now) ? retiring : nil
            }
            list = [Entry(credential: credential)] + earlier
        }
    }
}

/// The identity platform: directory, state, clock and keys, shared by every Entra, B2C and Graph handler.
package final class IdentityService: Sendable {
    package let clock: any TimeSource
    package let options: IdentityOptions
    package let keys: SigningKeyRing
    package let directory: DirectoryCell
    package let state: Mutex<PlatformState>
    /// Whether the writes of an attached persistence are being made (`serve --state`).
    package let durability = StateDurability()
    /// External ID's native-authentication flows in progress.
    package let nativeAuthFlows = NativeAuthFlows()
    /// The emails (one-time codes) the service sent.
    package let outbox = Outbox()

    package init(directory: Directory, keys: SigningKeyRing, clock: any TimeSource = VirtualClock(), options: IdentityOptions = .init(), limits: StateLimits = .standard) {
        self.clock = clock
        self.options = options
        self.keys = keys
        self.directory = DirectoryCell(directory)
        self.state = Mutex(PlatformState(limits: limits))
    }

    package var extensionTransport: any ExtensionTransport { options.extensionTransport.transport }

    /// A snapshot of the directory for one request's reads.
    package var currentDirectory: Directory { directory.current }
}

/// An extension transport inside `IdentityOptions`, which every world's service is made from: equal only to
/// itself.
package final class ExtensionTransportReference: Sendable, Equatable {
    package let transport: any ExtensionTransport

    package init(_ transport: any ExtensionTransport) { self.transport = transport }

    package static let unreachable = ExtensionTransportReference(UnreachableExtensionTransport())

    package static func == (lhs: ExtensionTransportReference, rhs: ExtensionTransportReference) -> Bool { lhs === rhs }
}
