import Synchronization

/// Whether what the server answered is also on disk (`serve --state`). A write that fails (disk full, the
/// file deleted or replaced under the server) is counted here; the front responder compares the count
/// before and after each request and answers 503 in the endpoint's own format when it grew, so nothing
/// is acknowledged that a restart would lose, and health reports `degraded` with the first reason until
/// the server is restarted (what was refused may be in memory but not on disk: only a restart reloads
/// the two in agreement).
package final class StateDurability: Sendable {
    private let record = Mutex<(failures: Int, firstReason: String?, lastReason: String?)>((0, nil, nil))
    /// `record.failures`, read without the lock: every request reads it twice.
    private let failureCount = Atomic<Int>(0)

    package init() {}

    /// How many writes have failed since start.
    package var failures: Int { failureCount.load(ordering: .acquiring) }

    /// Why the state is not durable, or nil while every write has been made.
    package var degradedReason: String? {
        record.withLock { entry in
            guard let first = entry.firstReason else { return nil }
            let later = entry.failures > 1 ? " (\(entry.failures) writes failed; latest: \(entry.lastReason ?? first))" : ""
            return first + later + "; restart the server once the cause is fixed"
        }
    }

    package func writeFailed(_ reason: String) {
        record.withLock { entry in
            entry.failures += 1
            if entry.firstReason == nil { entry.firstReason = reason }
            entry.lastReason = reason
            failureCount.store(entry.failures, ordering: .releasing)
        }
    }
}
