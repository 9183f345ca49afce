#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
package import EntraCrypto
import FoundationGaps
import Synchronization

/// A signing key generated ahead of need on a thread of its own, so that a scenario's key rollover swaps keys
/// on the request path instead of spending an RSA key generation there (tens to hundreds of milliseconds of
/// CPU on the worker, while the requests queued behind it wait). Not on an event loop: the loops answer
/// client-credentials tokens only while no scenario is bound, and a rollover needs one (a bind landing
/// between that check and the answer is the one way a rollover's key can be made on a loop).
package final class SpareSigningKey: Sendable {
    package static let threadName = "fakeentra-keygen"

    private enum State: Sendable {
        case empty
        case generating
        case ready(SigningCredential)
    }

    private let state = Mutex(State.empty)
    private let generations = DispatchGroup()

    /// Every generation under way in the process. At exit, OpenSSL's cleanup frees what a generating
    /// thread still uses: whichever way the process ends (a server stopped, a test fixture shut down,
    /// a usage error), it waits for them first.
    private static let underWay = DispatchGroup()
    private static let waitsAtExit: Void = { atexit { SpareSigningKey.underWay.wait() } }()
    private let generate: @Sendable () throws -> SigningCredential

    package init(generate: @escaping @Sendable () throws -> SigningCredential = { try SigningCredential.generate() }) {
        self.generate = generate
    }

    /// Starts making a spare unless one is ready or under way.
    package func prepare() {
        let starts = state.withLock { state -> Bool in
            guard case .empty = state else { return false }
            state = .generating
            return true
        }
        guard starts else { return }
        Self.waitsAtExit
        generations.enter()
        Self.underWay.enter()
        let thread = Thread { [self] in
            let made = try? generate()
            state.withLock { $0 = made.map(State.ready) ?? .empty }
            generations.leave()
            Self.underWay.leave()
        }
        thread.name = Self.threadName
        thread.start()
    }

    /// The spare when it is ready (and the next one started); while one is being made, that one once made
    /// (a second generation beside it would cost as much again); else a key made now on the caller's
    /// thread (a worker: the spare's generation failed, or another rollover took it first).
    package func take() throws -> SigningCredential {
        if isGenerating { generations.wait() }
        let ready = state.withLock { state -> SigningCredential? in
            guard case .ready(let credential) = state else { return nil }
            state = .empty
            return credential
        }
        prepare()
        if let ready { return ready }
        return try generate()
    }

    /// Blocks until the spare under way (if any) is made: for tests, which must not sleep.
    package func waitUntilPrepared() {
        generations.wait()
    }

    private var isGenerating: Bool {
        state.withLock { if case .generating = $0 { true } else { false } }
    }

    package var isReady: Bool {
        state.withLock { if case .ready = $0 { true } else { false } }
    }
}
