import ExchangeKernel
package import FoundationGaps
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
            matchesRecorded(entry.summary) && matchesPath(entry.path)
        }

        /// Everything but the path, which is matched as shown (scrubbed), once the entry is described.
        func matchesRecorded(_ entry: JournalSlot.Summary) -> Bool {
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
            if let world, entry.world != world { return false }
            if let sinceID, entry.id <= sinceID { return false }
            if let sinceTime, entry.time < sinceTime { return false }
            return true
        }

        func matchesPath(_ entryPath: String) -> Bool {
            guard let path else { return true }
            return entryPath.lowercased().contains(path.lowercased())
        }
    }

    private struct Store: Sendable {
        /// The kept slots are `slots[first...]`. An evicted slot is emptied at once (its memory goes back)
        /// and the emptied places are dropped from the front in batches, when they are half the array, so
        /// recording does not move the whole journal every time.
        var slots: [JournalSlot?] = []
        var first = 0
        var kept: [JournalSlot] { slots[first...].compactMap { $0 } }
        var totalBytes = 0
        var nextID = 1
        var dropped = 0

        /// Appends a slot made with the next id, and evicts the oldest beyond `limits`.
        mutating func append(_ makeSlot: (Int) -> JournalSlot, limits: Limits) -> Int {
            let slot = makeSlot(nextID)
            nextID += 1
            slots.append(slot)
            totalBytes += slot.size.load(ordering: .relaxed)
            evictBeyond(limits)
            return slot.id
        }

        /// Slots are appended with consecutive ids and leave from the front, so the kept ones are those
        /// from the first kept slot's id on (a slot of a cleared journal has a smaller id than any after).
        func isKept(_ slot: JournalSlot) -> Bool {
            guard first < slots.count, let oldest = slots[first] else { return false }
            return slot.id >= oldest.id
        }

        /// A kept slot's entry was described: the byte bound now counts the entry, which can be larger
        /// than what was recorded (text escaped in JSON, forms as objects).
        mutating func described(_ slot: JournalSlot, as entry: JournalEntry, limits: Limits) {
            guard isKept(slot) else { return }
            totalBytes += entry.approximateSize - slot.size.exchange(entry.approximateSize, ordering: .relaxed)
            evictBeyond(limits)
        }

        mutating func evictBeyond(_ limits: Limits) {
            var evict = 0
            var bytes = totalBytes
            let count = slots.count - first
            while count - evict > limits.maximumEntries || (bytes > limits.maximumBytes && count - evict > 1) {
                bytes -= slots[first + evict]?.size.load(ordering: .relaxed) ?? 0
                slots[first + evict] = nil
                evict += 1
            }
            guard evict > 0 else { return }
            first += evict
            totalBytes = bytes
            dropped += evict
            if first * 2 >= slots.count {
                slots.removeFirst(first)
                first = 0
            }
        }
    }

    package let limits: Limits
    private let store = Mutex(Store())
    /// Values redacted wherever they appear (see `Redaction.scrub`).
    package let secrets: SecretMemory

    package init(limits: Limits = .init(), secrets: SecretMemory = SecretMemory()) {
        self.limits = limits
        self.secrets = secrets
        secrets.beforeForgetting { [weak self] forget in
            guard let self else { return forget() }
            describePendingThenForget(forget)
        }
    }

    /// Records an exchange; it is described (parsed, redacted, scrubbed) when first read.
    @discardableResult
    func record(_ exchange: RecordedExchange) -> Int {
        store.withLock { $0.append({ JournalSlot(id: $0, recorded: exchange) }, limits: limits) }
    }

    /// Adds an entry as it is (its id is assigned here) and evicts the oldest beyond the limits.
    @discardableResult
    package func record(_ entry: JournalEntry) -> Int {
        store.withLock { $0.append({ JournalSlot(id: $0, described: entry) }, limits: limits) }
    }

    package func entries(matching filter: Filter = .init()) -> [JournalEntry] {
        var candidates = store.withLock { $0.kept }.filter { filter.matchesRecorded($0.summary) }
        // Without a path to match, the limit applies before anything is described.
        if filter.path == nil, let limit = filter.limit, limit >= 0, candidates.count > limit { candidates = Array(candidates.suffix(limit)) }
        // Described outside the journal's lock: recording goes on meanwhile.
        let matching = candidates.map(describe).filter { filter.matchesPath($0.path) }
        guard let limit = filter.limit, limit >= 0, matching.count > limit else { return matching }
        return Array(matching.suffix(limit))
    }

    /// The id of the last entry recorded (0 before any): every entry recorded after reading it has a larger
    /// one, whatever the clocks say.
    package var lastID: Int { store.withLock { $0.nextID - 1 } }

    /// How many entries the journal keeps, and their ids, oldest first, without describing them.
    package var count: Int { store.withLock { $0.kept.count } }
    package var ids: [Int] { store.withLock { $0.kept.map(\.id) } }

    private func describe(_ slot: JournalSlot) -> JournalEntry {
        let (entry, describedNow) = slot.entry(with: secrets)
        if describedNow { store.withLock { $0.described(slot, as: entry, limits: limits) } }
        return entry
    }

    /// The secret memory is full and about to forget its oldest values: every entry recorded so far is
    /// described first, while they are still remembered. Most are described outside the journal's lock;
    /// the ones recorded meanwhile under it, with `forget` run before it is released, so that no entry
    /// recorded before the values go is left to be described without them.
    private func describePendingThenForget(_ forget: () -> Void) {
        for slot in store.withLock({ $0.kept }) where !slot.isDescribed { _ = describe(slot) }
        store.withLock { store in
            for slot in store.kept where !slot.isDescribed {
                let (entry, describedNow) = slot.entry(with: secrets)
                if describedNow { store.described(slot, as: entry, limits: limits) }
            }
            forget()
        }
    }

    /// How many entries the bounds have pushed out since start (or the last clear).
    package var droppedCount: Int { store.withLock { $0.dropped } }
    package var totalBytes: Int { store.withLock { $0.totalBytes } }

    package func clear() {
        store.withLock { store in
            store.slots.removeAll()
            store.first = 0
            store.totalBytes = 0
            store.dropped = 0
        }
    }
}
