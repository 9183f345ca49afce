import EntraHTTP
import Foundation
import Synchronization

/// The secrets the journal has seen by name — configured passwords and client secrets, codes and
/// tokens the server issued, passwords users typed — so that the same value is redacted wherever it
/// turns up again, whatever it is called there (a `text/plain` body, a JSON member named `note`, a
/// `Referer`). Bounded: the oldest values are forgotten first.
package final class SecretMemory: Sendable {
    package static let capacity = 20_000
    /// Shorter values would redact ordinary words and numbers everywhere.
    static let minimumLength = 6

    private struct Store: Sendable {
        /// value → true when only its length may be shown (passwords: a hash could be looked up).
        var values: [String: Bool] = [:]
        var order: [String] = []
        var head = 0
    }

    private let store = Mutex(Store())

    package init() {}

    /// Remembers `value` if it can be a secret: a password-like name keeps any value of six or more
    /// characters; other names (codes, tokens) keep values that look random, so Graph's error `code`
    /// (`InvalidAuthenticationToken`) is not mistaken for one.
    package func learn(_ value: String, name: String) {
        guard value.utf8.count >= Self.minimumLength, value.utf8.count <= 16 * 1024 else { return }
        let lengthOnly = Redaction.isLengthOnly(name)
        guard lengthOnly || Self.looksRandom(value) else { return }
        store.withLock { s in
            guard s.values[value] == nil else { return }
            s.values[value] = lengthOnly
            if s.order.count < Self.capacity {
                s.order.append(value)
            } else {
                s.values[s.order[s.head]] = nil
                s.order[s.head] = value
                s.head = (s.head + 1) % Self.capacity
            }
        }
    }

    /// Configured secrets (users' passwords, apps' client secrets), learned at start-up.
    package func learnConfigured(passwords: [String], clientSecrets: [String]) {
        for password in Set(passwords) { learn(password, name: "password") }
        for secret in Set(clientSecrets) { learn(secret, name: "client_secret") }
    }

    /// nil when `value` is not a remembered secret; else whether only its length may be shown.
    func lookup<S: StringProtocol>(_ value: S) -> Bool? {
        guard value.utf8.count >= Self.minimumLength else { return nil }
        return store.withLock { $0.values[String(value)] }
    }

    var isEmpty: Bool { store.withLock { $0.values.isEmpty } }

    /// See `SecretShape.looksRandom`.
    static func looksRandom(_ value: String) -> Bool { SecretShape.looksRandom(value) }
}
