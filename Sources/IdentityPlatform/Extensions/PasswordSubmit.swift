import EntraCrypto
import EntraHTTP
import ExchangeKernel
package import FoundationGaps
import LocatedJSON

/// The one password check of an External ID sign-in, with OnPasswordSubmit's just-in-time migration: a
/// password that is not the account's, of a user whose migration flag is true, is sent encrypted to the
/// extension listening for the app, which judges it against the legacy system. A migrated password is
/// stored and the flag cleared; a matching password clears the flag silently
/// (learn.microsoft.com/entra/external-id/customers/how-to-migrate-passwords-just-in-time, "How the JIT
/// migration process works").
package struct PasswordSubmit {
    package enum Verdict: Equatable {
        /// The password is the account's, now or once migrated: the sign-in goes on with this user (whose
        /// password is expired when the extension answered UpdatePassword: the pages and the password grant
        /// then ask for a new one, as for any expired password).
        case accepted(DirectoryUser)
        /// Not the password, or the extension's Retry.
        case refused
        /// The extension's Block, with its words.
        case blocked(title: String?, message: String)
        /// The extension failed: the sign-in fails as the service fails it (AADSTS1100001).
        case failed
    }

    /// The block page's words when the answer has none.
    static let defaultBlockMessage = "Your sign-in was blocked. Please contact the owner of the application/website."
    /// How long the password context may be read: ten minutes, as recorded (cljung/CustomAuthenticationExtension,
    /// README.md, "Encrypted Password Token": `exp` − `iat` = 600).
    static let contextLifetime: TimeInterval = 600
    /// Entra's longest password (learn.microsoft.com, "Password policies and account restrictions": 256
    /// characters): nothing longer is sent to an extension or stored.
    static let longestPassword = 256

    let exchange: IdentityExchange

    package init(_ exchange: IdentityExchange) { self.exchange = exchange }

    /// Whether `presented` signs `user` in to `client`, by the account's password or by the extension's.
    /// `signInName` is what the person typed (the context's `username`). A client the directory does not
    /// hold (lenient mode) has no listener.
    package func check(_ presented: String, of user: DirectoryUser, signInName: String, client: Application?) -> Verdict {
        // Only a usable account with a migration flag can be migrating: every other sign-in is the password
        // check alone (the pages and native authentication check the account's state first, the password
        // grant once the password is right).
        guard user.isUsable, user.attributes?.isEmpty == false else { return user.accepts(password: presented) ? .accepted(user) : .refused }
        let service = exchange.service
        let tenant = service.currentDirectory.tenant(id: user.tenantID)
        let listening = client.flatMap { client in
            tenant?.extensions(at: .passwordSubmit).first { $0.listensForSignIn(of: client.clientID) }
        }
        let flag = listening?.migrationPropertyID
        let toMigrate = flag.map { user.attributes?[$0]?.lowercased() == "true" } ?? false
        if user.accepts(password: presented) {
            guard toMigrate, let flag else { return .accepted(user) }
            return .accepted(migrated(user, flag: flag) { _ in } ?? user)
        }
        guard toMigrate, let ext = listening, let flag, let tenant, let client, presented.count <= Self.longestPassword else { return .refused }
        let nonce = SecureRandom.guid()
        let context: String
        do {
            context = try passwordContext(presented, signInName: signInName, nonce: nonce, for: ext)
        } catch {
            exchange.receipt.calledExtension(Receipt.ExtensionCall(extensionID: ext.id, event: ext.event.rawValue, targetURL: ExtensionCallout.shown(ext.targetURL),
                                                                   attempts: 0, httpStatus: nil, milliseconds: 0,
                                                                   failure: "the password context cannot be encrypted: \(error)"))
            return .failed
        }
        var authentication = ExtensionContext.members(tenantID: tenant.id, clientAddress: exchange.connection.remoteAddress, client: client, resource: nil)
        authentication += [("resourceServicePrincipal", .null), ("user", ExtensionContext.user(user))]
        let payload = ExtensionCallout.envelope(ext, tenantID: tenant.id, sourceAppID: client.clientID, data: [
            ("encryptedPasswordContext", .string(context)), ("authenticationContext", .object(authentication)),
            ("userSignUpInfo", .null), ("otpContext", .null),
        ])
        let callout = ExtensionCallout(transport: service.extensionTransport, strict: service.options.strict)
        let bearer = ExtensionBearer.token(for: ext, tenant: tenant, service: service, origin: exchange.origin.url, now: exchange.now)
        let answer = callout.call(ext, payload: payload, bearer: bearer, record: exchange.receipt.calledExtension) { action, data -> Result<JSONValue, ExtensionFailure> in
            guard let answered = data["nonce"]?.string, ConstantTime.equals(answered, nonce) else {
                return .failure(ExtensionFailure(.invalidResponseBody, "the answer's nonce is not the one in the request's password context"))
            }
            return .success(action)
        }
        guard case .success(let action) = answer else { return .failed }
        switch action.actionName(for: .passwordSubmit) {
        case "MigratePassword": return settled(migrated(user, flag: flag) { $0.password = presented }, of: user.id, presented)
        case "UpdatePassword":
            return settled(migrated(user, flag: flag) {
                $0.password = presented
                $0.passwordExpired = true
            }, of: user.id, presented)
        case "Block": return .blocked(title: action["title"]?.string, message: action["message"]?.string ?? Self.defaultBlockMessage)
        default: return .refused
        }
    }

    /// The JWE the extension decrypts: the password, the name typed and the nonce the answer repeats, for
    /// the extension's app (`aud`), from its identifier URI (`iss`), as recorded.
    func passwordContext(_ password: String, signInName: String, nonce: String, for ext: CustomAuthenticationExtension) throws -> String {
        guard let pem = ext.encryptionCertificate else { throw CryptoError(.invalidCertificate, "the extension has no encryption certificate") }
        let now = Int(exchange.now.timeIntervalSince1970)
        let claims = JSONValue.object([
            ("aud", .string(ext.resourceAppID)), ("iss", .string(ext.resourceID)), ("iat", .int(now)), ("nbf", .int(now)),
            ("exp", .int(now + Int(Self.contextLifetime))), ("user-password", .string(password)), ("username", .string(signInName)),
            ("nonce", .string(nonce)),
        ])
        return try JWE.encrypt(claims.bytes, to: X509Certificate(pem: pem))
    }

    /// The user with the flag false and `change` made, stored in one write; nil when the flag was cleared
    /// meanwhile (a concurrent sign-in migrated the user, or a reset set a new password).
    func migrated(_ user: DirectoryUser, flag: String, _ change: @Sendable (inout DirectoryUser) -> Void) -> DirectoryUser? {
        exchange.service.directory.withLock { directory in
            directory.migrate(userID: user.id, flag: flag, change)
        }
    }

    /// A migration that found the flag cleared stands only if the account's password is now the one typed.
    func settled(_ migrated: DirectoryUser?, of userID: String, _ presented: String) -> Verdict {
        if let migrated { return .accepted(migrated) }
        guard let user = exchange.service.currentDirectory.user(id: userID), user.accepts(password: presented) else { return .refused }
        return .accepted(user)
    }
}

extension PasswordSubmit.Verdict {
    /// The user signed in, or the token endpoint's refusal: a wrong password as any, a block as the
    /// service's refusal of a locked account (the documented use of Block is "account locked in legacy
    /// system"; the token endpoint's wording of it is not published), a failed extension as AADSTS1100001.
    package func signedIn() throws(IdentityError) -> DirectoryUser {
        switch self {
        case .accepted(let user): return user
        case .refused: throw .invalidCredentials()
        case .blocked: throw .refusing(.locked)
        case .failed: throw .customExtensionFailed()
        }
    }
}
