import IdentityFixtures
@testable import Journal
import EntraHTTP
import Foundation
import Synchronization
import Testing
@testable import ExchangeKernel
@testable import IdentityPlatform

/// The journal records exchanges as they are and describes them when first read (`RecordedExchange`):
/// what a reader sees must be what describing at once would have shown, and never less redacted.
@Suite struct DeferredJournalTests {
    /// A value that looks random enough for the memory to keep it under a token's name.
    static func randomLooking(_ index: Int) -> String { "Zq8\(index)xW3-\(String(index * 7919, radix: 36))-Lm9pT2vK" }

    static func exchange(body: String, contentType: String = "text/plain", path: String = "/note") -> RecordedExchange {
        RecordedExchange(time: Date(timeIntervalSince1970: 0), method: "POST", path: path, rawQuery: nil, status: 200, kind: "other",
                         durationMilliseconds: 1, requestHeaders: [("Content-Type", contentType)], responseHeaders: [],
                         requestBody: RecordedBody(Array(body.utf8), contentType: contentType),
                         responseBody: RecordedBody([], contentType: nil), receipt: Receipt())
    }

    /// A refresh token a client echoes in a free-text note is redacted by memory only. The memory then
    /// fills up and forgets it before anyone reads the journal: the entry must have been described first.
    @Test func anEntryIsDescribedBeforeTheMemoryForgetsTheValuesItNeeds() throws {
        let journal = RequestJournal(limits: .init(maximumEntries: 10, maximumBytes: 1 << 20))
        let secret = Self.randomLooking(-1)
        journal.secrets.learn(secret, name: "refresh_token")
        journal.record(Self.exchange(body: "my token is \(secret) thanks"))
        for index in 0..<SecretMemory.capacity { journal.secrets.learn(Self.randomLooking(index), name: "refresh_token") }
        journal.secrets.waitForForgetting()
        #expect(journal.secrets.lookup(secret) == nil, "the memory forgot the oldest values")
        let entry = try #require(journal.entries().first)
        #expect(!entry.requestBody.contains(secret), "\(entry.requestBody)")
        #expect(entry.requestBody.contains("[redacted"))
    }

    /// Without a journal to ask, the memory forgets its oldest quarter at once and keeps the newest values,
    /// on a thread of its own or, when told to, on the learner's. Past the room kept for a forgetting
    /// under way, the learner forgets itself.
    @Test(arguments: [true, false]) func aFullMemoryForgetsItsOldestQuarter(inBackground: Bool) {
        let memory = SecretMemory(forgettingInBackground: inBackground)
        for index in 0...SecretMemory.capacity { memory.learn(Self.randomLooking(index), name: "code") }
        memory.waitForForgetting()
        #expect(memory.lookup(Self.randomLooking(0)) == nil)
        #expect(memory.lookup(Self.randomLooking(SecretMemory.forgottenAtOnce - 1)) == nil)
        #expect(memory.lookup(Self.randomLooking(SecretMemory.forgottenAtOnce)) != nil)
        #expect(memory.lookup(Self.randomLooking(SecretMemory.capacity)) != nil)
    }

    /// Described when read, an entry is also scrubbed of values learned after it was recorded.
    @Test func aValueLearnedAfterRecordingIsRedactedToo() throws {
        let journal = RequestJournal()
        let secret = Self.randomLooking(42)
        journal.record(Self.exchange(body: "later: \(secret)"))
        journal.secrets.learn(secret, name: "access_token")
        let entry = try #require(journal.entries().first)
        #expect(!entry.requestBody.contains(secret))
    }

    /// The deferred description is the one `describeBody` gives, and bodies that only their size
    /// describes (pages) are not kept.
    @Test func bodiesAreDescribedAsAtOnce() {
        let bodies: [(String, String)] = [
            (#"{"refresh_token":"x","n":1}"#, "application/json"),
            ("client_secret=s3cr3t-value&scope=openid", "application/x-www-form-urlencoded"),
            ("password=hunter2", "text/plain"),
            ("<html>code</html>", "text/html"),
            ("", "application/json"),
        ]
        for (text, type) in bodies {
            let recorded = RecordedBody(Array(text.utf8), contentType: type)
            #expect(recorded.shown.text == JournalEntry.describeBody(Array(text.utf8), contentType: type).text)
            if case .bytes = recorded { #expect(type != "text/html" && !text.isEmpty) }
        }
    }

    /// Readers see the same entries whether or not forgetting described them first; ids, order and the
    /// byte bound are kept as recorded.
    @Test func entriesKeepTheirIdsAndBounds() {
        let journal = RequestJournal(limits: .init(maximumEntries: 3, maximumBytes: 1 << 20))
        for index in 0..<5 { journal.record(Self.exchange(body: "n=\(index)", path: "/p\(index)")) }
        #expect(journal.totalBytes == (2...4).reduce(0) { $0 + Self.exchange(body: "n=\($1)", path: "/p\($1)").approximateSize })
        let entries = journal.entries()
        #expect(entries.map(\.id) == [3, 4, 5])
        #expect(entries.map(\.path) == ["/p2", "/p3", "/p4"])
        #expect(journal.droppedCount == 2)
        #expect(journal.totalBytes == entries.reduce(0) { $0 + $1.approximateSize }, "described, each entry counts its own size")
        #expect(journal.entries(matching: .init(path: "p3")).map(\.id) == [4])
    }

    /// Described, an entry can be larger than what was recorded (control characters escaped in JSON):
    /// the byte bound counts the described size and evicts the oldest to stay within it.
    @Test func theByteBoundHoldsOnceEntriesAreDescribed() {
        let body = String(repeating: "\u{01}", count: 200)
        let recordedSize = Self.exchange(body: body).approximateSize
        let journal = RequestJournal(limits: .init(maximumEntries: 100, maximumBytes: recordedSize * 4))
        for _ in 0..<4 { journal.record(Self.exchange(body: body)) }
        #expect(journal.totalBytes == recordedSize * 4 && journal.count == 4)
        let entries = journal.entries()
        #expect(entries.first?.requestBody.contains("\\u0001") == true)
        #expect(journal.totalBytes <= journal.limits.maximumBytes, "\(journal.totalBytes)")
        #expect(journal.count < 4 && journal.droppedCount == 4 - journal.count)
    }

    /// Two journals sharing a memory: both describe their pending entries before it forgets.
    @Test func everyJournalSharingAMemoryDescribesBeforeItForgets() throws {
        let memory = SecretMemory()
        let first = RequestJournal(secrets: memory), second = RequestJournal(secrets: memory)
        let secret = Self.randomLooking(-2)
        memory.learn(secret, name: "refresh_token")
        first.record(Self.exchange(body: "first \(secret)"))
        second.record(Self.exchange(body: "second \(secret)"))
        for index in 0..<SecretMemory.capacity { memory.learn(Self.randomLooking(index), name: "code") }
        memory.waitForForgetting()
        #expect(memory.lookup(secret) == nil)
        for journal in [first, second] {
            let entry = try #require(journal.entries().first)
            #expect(!entry.requestBody.contains(secret), "\(entry.requestBody)")
        }
    }

    /// A JWT is redacted by its shape, so the memory does not keep one; percent-encoded, it is still caught.
    @Test func aPercentEncodedJWTIsRedactedByShape() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2lnbmF0dXJlLWJ5dGVz"
        let memory = SecretMemory()
        memory.learn(jwt, name: "access_token")
        #expect(memory.lookup(jwt) == nil)
        let encoded = jwt.replacingOccurrences(of: ".", with: "%2E")
        for text in ["token \(jwt) end", "token \(encoded) end"] {
            #expect(!Redaction.scrub(text, memory: memory).contains("eyJzdWIiOiJhYmMifQ"), "\(text)")
        }
    }

    /// The count and the ids a page needs are read without describing anything; filters on the
    /// recorded fields and the limit pick entries before they are described.
    @Test func countsAndLimitsDoNotDescribeTheWholeJournal() {
        let journal = RequestJournal()
        for index in 0..<5 { journal.record(Self.exchange(body: "n=\(index)", path: "/p\(index)")) }
        #expect(journal.count == 5 && journal.ids == [1, 2, 3, 4, 5])
        #expect(journal.entries(matching: .init(limit: 2)).map(\.id) == [4, 5])
        #expect(journal.entries(matching: .init(path: "p1", limit: 1)).map(\.id) == [2])
        #expect(journal.entries(matching: .init(sinceID: 3)).map(\.id) == [4, 5])
    }

    /// A memory whose forgetting never gets to run (a hook that holds it) still stays bounded: past the
    /// room kept for it, the learner forgets itself, after the journal described what it holds.
    @Test func theLearnerForgetsWhenTheRoomForAForgettingIsFull() throws {
        // The gate is the outer hook, so the held forgetting waits before the journal takes its lock.
        let memory = SecretMemory()
        let gate = DispatchSemaphore(value: 0), learned = DispatchSemaphore(value: 0)
        let learnerThread = Mutex<pthread_t?>(nil), held = Mutex(false)
        memory.beforeForgetting { forget in
            let onLearner = learnerThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            // Only the first background forgetting is held; later ones pass.
            if !onLearner, !held.withLock({ wasHeld in defer { wasHeld = true }; return wasHeld }) { gate.wait() }
            forget()
        }
        let journal = RequestJournal(secrets: memory)
        let secret = Self.randomLooking(-3)
        memory.learn(secret, name: "refresh_token")
        journal.record(Self.exchange(body: "held \(secret)"))
        let learner = Thread {
            learnerThread.withLock { $0 = pthread_self() }
            for index in 0..<SecretMemory.hardCapacity { memory.learn(Self.randomLooking(index), name: "code") }
            learned.signal()
        }
        learner.start()
        learned.wait()
        #expect(memory.lookup(secret) == nil, "forgotten by the learner while the background one was held")
        #expect(memory.lookup(Self.randomLooking(SecretMemory.hardCapacity - 1)) != nil)
        let entry = try #require(journal.entries().first)
        #expect(!entry.requestBody.contains(secret))
        gate.signal()
        memory.waitForForgetting()
    }
}
