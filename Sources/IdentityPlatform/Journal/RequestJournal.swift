package import Foundation
import Synchronization

/// A bounded in-memory log of requests and responses: the oldest entries go first once either the
/// entry count or the total size passes its limit.
package final class RequestJournal: Sendable {
    package struct Limits: Sendable, Equatable {
        package var maximumEntries: Int
        package var maximumBytes: Int
        package init(maximumEntries: Int = 1000, maximumBytes: Int = 8 * 1024 * 1024) {
            self.maximumEntries = maximumEntries
            self.maximumBytes = maximumBytes
        }
    }

    /// What a reader asks for (`GET /_fakeentra/journal?path=&status=&since=&limit=&kind=&method=`).
    package struct Filter: Sendable, Equatable {
        /// Substring of the path, ignoring case.
        package var path: String?
        /// The endpoint kind (`token`, `authorize`, `graph`, …).
        package var kind: String?
        package var method: String?
        /// An exact status (`400`) or a class (`4xx`).
        package var status: String?
        /// Entries with a larger id than this.
        package var sinceID: Int?
        /// Entries at or after this time.
        package var sinceTime: Date?
        /// The most recent `limit` matches.
        package var limit: Int?
        /// Entries one scenario binding's world answered (its id, as in the receipt's `world`).
        package var world: String?

        package init(path: String? = nil, status: String? = nil, sinceID: Int? = nil, sinceTime: Date? = nil, limit: Int? = nil) {
            self.path = path
            self.status = status
            self.sinceID = sinceID
            self.sinceTime = sinceTime
            self.limit = limit
        }

        func matches(_ entry: JournalEntry) -> Bool {
            if let path, !entry.path.lowercased().contains(path.lowercased()) { return false }
            if let kind, entry.kind.caseInsensitiveCompare(kind) != .orderedSame { return false }
            if let method, entry.method.caseInsensitiveCompare(method) != .orderedSame { return false }
            if let status {
                let wanted = status.lowercased()
                if wanted.count == 3, wanted.hasSuffix("xx"), let digit = wanted.first?.wholeNumberValue {
                    if entry.status / 100 != digit { return false }
                } else if Int(wanted) != entry.status {
                    return false
                }
            }
            if let world, entry.receipt.world != world { return false }
            if let sinceID, entry.id <= sinceID { return false }
            if let sinceTime, entry.time < sinceTime { return false }
            return true
        }
    }

    private struct Store: Sendable {
        /// The kept entries are `entries[first...]`. An evicted entry's slot is emptied at once (its memory
        /// goes back) and the slots are dropped from the front in batches, when they are half the array, so
        /// recording does not move the whole journal every time.
        var entries: [JournalEntry?] = []
        var first = 0
        var kept: [JournalEntry] { entries[first...].compactMap { $0 } }
        var totalBytes = 0
        var nextID = 1
        var dropped = 0
    }

    package let limits: Limits
    private let store = Mutex(Store())
    /// Values redacted wherever they appear (see `Redaction.scrub`).
    package let secrets: SecretMemory

    package init(limits: Limits = .init(), secrets: SecretMemory = SecretMemory()) {
        self.limits = limits
        self.secrets = secrets
    }

    /// Records `entry` with every remembered or secret-shaped value redacted.
    func record(scrubbing entry: JournalEntry) {
        record(entry.scrubbed(with: secrets))
    }

    /// Adds an entry (its id is assigned here) and evicts the oldest beyond the limits.
    @discardableResult
    package func record(_ entry: JournalEntry) -> Int {
        store.withLock { store in
            var entry = entry
            entry.id = store.nextID
            store.nextID += 1
            store.entries.append(entry)
            store.totalBytes += entry.approximateSize
            var evict = 0
            var bytes = store.totalBytes
            let count = store.entries.count - store.first
            while count - evict > limits.maximumEntries || (bytes > limits.maximumBytes && count - evict > 1) {
                bytes -= store.entries[store.first + evict]?.approximateSize ?? 0
                store.entries[store.first + evict] = nil
                evict += 1
            }
            if evict > 0 {
                store.first += evict
                store.totalBytes = bytes
                store.dropped += evict
                if store.first * 2 >= store.entries.count {
                    store.entries.removeFirst(store.first)
                    store.first = 0
                }
            }
            return entry.id
        }
    }

    package func entries(matching filter: Filter = .init()) -> [JournalEntry] {
        let matching = store.withLock { $0.kept.filter(filter.matches) }
        guard let limit = filter.limit, limit >= 0, matching.count > limit else { return matching }
        return Array(matching.suffix(limit))
    }

    /// How many entries the bounds have pushed out since start (or the last clear).
    package var droppedCount: Int { store.withLock { $0.dropped } }
    package var totalBytes: Int { store.withLock { $0.totalBytes } }

    package func clear() {
        store.withLock { store in
            store.entries.removeAll()
            store.first = 0
            store.totalBytes = 0
            store.dropped = 0
        }
    }
}
