package import FoundationGaps

/// A record that can be forgotten once a point in (virtual) time has passed.
package protocol Expiring: Sendable {
    /// When the store may drop the record. Later than the protocol expiry where the expired record must
    /// still answer with its own error (an expired refresh token says AADSTS700082, not "unknown grant").
    var forgetAt: Date { get }
    /// About how many bytes the record holds: its texts in UTF-8 plus a fixed cost per record, for the
    /// store's byte budget. Counted where the record is stored, so that what a request chose (a nonce, a
    /// claims request, parameters) costs the store what it weighs.
    var retainedBytes: Int { get }
}

extension Expiring {
    /// What every record costs besides its texts: the heap entry, dictionary slot, dates and flags.
    package static var recordOverhead: Int { 128 }
}

/// A bounded dictionary whose entries leave by themselves: a min-heap ordered by `forgetAt` finds the next
/// entry due without looking at any other, so purging costs O(log n) per dropped entry and each call does
/// a bounded amount of work, however many entries are live. When full, a new key evicts the entry due
/// soonest (the one closest to being forgotten anyway); see docs/state.md for why that is the answer.
///
/// The heap is lazy: changing a record's `forgetAt` pushes a new heap entry and leaves the old one to be
/// skipped when it surfaces; the heap is rebuilt from the live entries when stale ones outnumber them.
package struct ExpiringStore<Key: Hashable & Sendable, Value: Expiring>: Sendable {
    private struct Slot: Sendable {
        var value: Value
        var due: Double
        var bytes: Int
    }

    private struct Due: Sendable {
        var due: Double
        var key: Key
    }

    private var slots: [Key: Slot] = [:]
    private var heap: [Due] = []
    /// At most this many entries; inserting a new key beyond it evicts the entry due soonest.
    package let capacity: Int
    /// At most this many `retainedBytes` in all; a record that would exceed it evicts the entries due
    /// soonest until it fits (a record larger than the whole budget is still kept, alone).
    package let byteBudget: Int
    /// The `retainedBytes` of the records held now.
    package private(set) var retainedBytes = 0
    /// Heap entries examined by purges and evictions since creation: how tests see that a purge did not
    /// scan the store.
    package private(set) var purgeWork = 0
    /// Entries dropped because the store was full.
    package private(set) var evictions = 0
    /// The keys evicted last (a bounded ring), so that a client presenting one is told its grant expired
    /// rather than that it never existed.
    private var recentlyEvicted: Set<Key> = []
    private var evictionRing: [Key] = []
    private var evictionRingNext = 0
    /// Told of every change (nil value: the key left), in order, while the caller holds the state's lock.
    var observer: (@Sendable (Key, Value?) -> Void)?
    private static var evictionMemory: Int { 4096 }

    package init(capacity: Int, byteBudget: Int = .max) {
        precondition(capacity > 0, "a store holds at least one entry")
        self.capacity = capacity
        self.byteBudget = byteBudget
    }

    package var count: Int { slots.count }
    package var isEmpty: Bool { slots.isEmpty }
    package var keys: [Key] { Array(slots.keys) }
    package var values: [Value] { slots.values.map(\.value) }

    package subscript(key: Key) -> Value? {
        get { slots[key]?.value }
        set {
            if let newValue { store(newValue, for: key) } else { _ = removeValue(forKey: key) }
        }
    }

    /// True when `key` was dropped recently because the store was full.
    package func wasEvicted(_ key: Key) -> Bool { recentlyEvicted.contains(key) }

    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        // Its heap entry goes stale and is skipped when it surfaces.
        guard let removed = slots.removeValue(forKey: key) else { return nil }
        retainedBytes -= removed.bytes
        observer?(key, nil)
        return removed.value
    }

    /// Drops up to `limit` entries whose `forgetAt` is at or before `now`, soonest first.
    /// Returns how many were dropped.
    @discardableResult
    package mutating func purge(now: Date, limit: Int = 64) -> Int {
        let horizon = now.timeIntervalSinceReferenceDate
        var dropped = 0
        var examined = 0
        // Stale heap entries are skipped but still counted, so one call's work stays bounded.
        while dropped < limit, examined < limit * 4, let top = heap.first, top.due <= horizon {
            examined += 1
            popMinimum()
            if let slot = slots[top.key], slot.due == top.due {
                slots.removeValue(forKey: top.key)
                retainedBytes -= slot.bytes
                observer?(top.key, nil)
                dropped += 1
            }
        }
        purgeWork += examined
        return dropped
    }

    private mutating func store(_ value: Value, for key: Key) {
        let due = value.forgetAt.timeIntervalSinceReferenceDate
        let bytes = value.retainedBytes
        defer { observer?(key, value) }
        if let existing = slots[key] {
            retainedBytes += bytes - existing.bytes
            slots[key] = Slot(value: value, due: due, bytes: bytes)
            if existing.due != due { push(Due(due: due, key: key)) }
            // A record that grew may push others out, never itself.
            while retainedBytes > byteBudget, slots.count > 1, evictSoonestDue(sparing: key) {}
            return
        }
        if slots.count >= capacity { evictSoonestDue(sparing: nil) }
        while !slots.isEmpty, retainedBytes + bytes > byteBudget, evictSoonestDue(sparing: nil) {}
        slots[key] = Slot(value: value, due: due, bytes: bytes)
        retainedBytes += bytes
        push(Due(due: due, key: key))
    }

    /// Evicts the entry due soonest other than `sparing` (whose heap entry, if met, is pushed back).
    /// False when nothing could be evicted.
    @discardableResult
    private mutating func evictSoonestDue(sparing: Key?) -> Bool {
        var spared: Due?
        defer { if let spared { push(spared) } }
        while let top = heap.first {
            purgeWork += 1
            popMinimum()
            guard let slot = slots[top.key], slot.due == top.due else { continue }
            if top.key == sparing {
                spared = top
                continue
            }
            slots.removeValue(forKey: top.key)
            retainedBytes -= slot.bytes
            observer?(top.key, nil)
            evictions += 1
            remember(evicted: top.key)
            return true
        }
        return false
    }

    private mutating func remember(evicted key: Key) {
        if evictionRing.count < Self.evictionMemory {
            evictionRing.append(key)
        } else {
            recentlyEvicted.remove(evictionRing[evictionRingNext])
            evictionRing[evictionRingNext] = key
            evictionRingNext = (evictionRingNext + 1) % Self.evictionMemory
        }
        recentlyEvicted.insert(key)
    }

    private mutating func push(_ entry: Due) {
        if heap.count >= 2 * slots.count + 64 { rebuildHeap() }
        heap.append(entry)
        siftUp(from: heap.count - 1)
    }

    /// Heapify the live entries in O(n): amortised O(1) over the stale pushes that made it necessary.
    private mutating func rebuildHeap() {
        heap = slots.map { Due(due: $0.value.due, key: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    private mutating func popMinimum() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var smallest = left
            if left + 1 < count, heap[left + 1].due < heap[left].due { smallest = left + 1 }
            guard heap[smallest].due < heap[parent].due else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
