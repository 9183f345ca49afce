import ExchangeKernel
import EntraHTTP
import Dispatch
import FoundationGaps
import Synchronization

/// The secrets the journal has seen by name — configured passwords and client secrets, codes and
/// tokens the server issued, passwords users typed — so that the same value is redacted wherever it
/// turns up again, whatever it is called there (a `text/plain` body, a JSON member named `note`, a
/// `Referer`). Bounded: once it holds `capacity` values, its oldest quarter is forgotten at once, after
/// the journal has described the entries it recorded while they were remembered (`beforeForgetting`).
/// That runs on a thread of its own, so no request waits for the journal's description; the values
/// learned meanwhile are kept too, up to a quarter more, beyond which the learner forgets itself.
package final class SecretMemory: Sendable {
    package static let capacity = 20_000
    /// How many of the oldest values go when the memory is full: forgetting runs the journal's
    /// description of every pending entry first, so it happens in batches rather than at every value.
    static let forgottenAtOnce = capacity / 4
    /// What the memory holds at most, while forgetting is under way.
    static let hardCapacity = capacity + forgottenAtOnce
    /// Shorter values would redact ordinary words and numbers everywhere.
    static let minimumLength = 6

    package typealias ForgettingHook = @Sendable (_ forget: () -> Void) -> Void

    private struct Store: Sendable {
        /// value → true when only its length may be shown (passwords: a hash could be looked up).
        var values: [String: Bool] = [:]
        /// The remembered values, oldest first, are `order[first...]`.
        var order: [String] = []
        var first = 0
        /// Set while a forgetting is queued or running, so that one at a time is.
        var forgetting = false

        var count: Int { order.count - first }

        /// False, remembering nothing, when even the room kept for a forgetting under way is full.
        mutating func remember(_ value: String, lengthOnly: Bool) -> Bool {
            guard values[value] == nil else { return true }
            guard count < SecretMemory.hardCapacity else { return false }
            values[value] = lengthOnly
            order.append(value)
            return true
        }

        mutating func forgetOldest() {
            let end = first + SecretMemory.forgottenAtOnce
            for value in order[first..<end] { values[value] = nil }
            first = end
            if first * 2 >= order.count {
                order.removeFirst(first)
                first = 0
            }
        }
    }

    private let store = Mutex(Store())
    private let hooks = Mutex<[ForgettingHook]>([])
    private let forgettingInBackground: Bool
    private let forgettings = DispatchGroup()

    /// `forgettingInBackground: false` forgets on the learning thread (tests of the bound itself).
    package init(forgettingInBackground: Bool = true) {
        self.forgettingInBackground = forgettingInBackground
    }

    /// Returns once no forgetting is queued or running (tests).
    package func waitForForgetting() { forgettings.wait() }

    /// `hook` runs when the memory is full, with the function that forgets the oldest values: it is to
    /// call it once it has done what needed them (the journal describes its pending entries). With
    /// several hooks (journals sharing a memory), each runs inside the one registered before it.
    package func beforeForgetting(_ hook: @escaping ForgettingHook) {
        hooks.withLock { $0.append(hook) }
    }

    /// Remembers `value` if it can be a secret: a password-like name keeps any value of six or more
    /// characters; other names (codes, tokens) keep values that look random, so Graph's error `code`
    /// (`InvalidAuthenticationToken`) is not mistaken for one.
    package func learn(_ value: String, name: String) {
        let lengthOnly = Redaction.isLengthOnly(name)
        guard Self.keeps(value, lengthOnly: lengthOnly) else { return }
        remember([(value, lengthOnly)])
    }

    /// Configured secrets (users' passwords, apps' client secrets), learned at start-up: what `learn`
    /// does with the names `password` and `client_secret`, under as few locks as the capacity allows
    /// (a config can hold 100,000 users).
    package func learnConfigured(passwords: [String], clientSecrets: [String]) {
        let passwordsLengthOnly = Redaction.isLengthOnly("password")
        let secretsLengthOnly = Redaction.isLengthOnly("client_secret")
        var values: [(String, Bool)] = []
        for password in Set(passwords) where Self.keeps(password, lengthOnly: passwordsLengthOnly) { values.append((password, passwordsLengthOnly)) }
        for secret in Set(clientSecrets) where Self.keeps(secret, lengthOnly: secretsLengthOnly) { values.append((secret, secretsLengthOnly)) }
        remember(values)
    }

    /// Remembers each value in turn. Past `capacity`, one forgetting is started on a thread of its own;
    /// should the room beyond it fill up first, the learner forgets on its own thread and goes on.
    private func remember(_ values: [(String, Bool)]) {
        var next = 0
        while next < values.count {
            let (startForgetting, full) = store.withLock { store -> (Bool, Bool) in
                while next < values.count, store.remember(values[next].0, lengthOnly: values[next].1) { next += 1 }
                let starts = store.count >= Self.capacity && !store.forgetting
                if starts { store.forgetting = true }
                return (starts, next < values.count)
            }
            if startForgetting {
                if forgettingInBackground {
                    forgettings.enter()
                    DispatchQueue.global(qos: .utility).async { [self] in
                        forgetOldest()
                        forgettings.leave()
                    }
                } else {
                    forgetOldest()
                }
            }
            if full { forgetOldest() }
        }
    }

    /// Runs the hooks, each inside the one registered before it, the innermost forgetting the oldest
    /// quarter; they are run outside the memory's lock (they read the memory).
    private func forgetOldest() {
        var forgot = false
        let forget = {
            forgot = true
            self.store.withLock { store in
                if store.count >= Self.capacity { store.forgetOldest() }
                store.forgetting = false
            }
        }
        var run: () -> Void = forget
        for hook in hooks.withLock({ $0 }).reversed() {
            let inner = run
            run = { hook(inner) }
        }
        run()
        // A hook that did not call on would otherwise leave the memory full for good.
        if !forgot { forget() }
    }

    /// Whether a value met under a name that `lengthOnly` describes is worth remembering. A JWT or an
    /// issued refresh token or device code is not: `Redaction.scrub` recognises its shape first, and
    /// remembering it would only cost a 1-2 KB copy and its hashing for every token issued.
    private static func keeps(_ value: String, lengthOnly: Bool) -> Bool {
        guard value.utf8.count >= minimumLength, value.utf8.count <= 16 * 1024, !SecretShape.isSecret(value) else { return false }
        return lengthOnly || looksRandom(value)
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
