@testable import EntraServer
import Testing

/// The kernel gives a closed descriptor's number to the next socket, and a loop handles a batch of
/// events fetched before it acted on any. A connection that closes early in a batch can lend its number
/// to one accepted later in the same batch; the batch's remaining events for that number are the closed
/// one's. This queue stands in for that reuse, which cannot be made to happen on demand: after each
/// batch it reports a hang-up and an error for every descriptor added while the batch was handled.
final class StaleReadinessQueue: EventQueue {
    private let inner: any EventQueue
    private var handlingBatch = false
    private var addedInBatch: [Int32] = []

    init(_ inner: any EventQueue) { self.inner = inner }

    func add(_ fd: Int32, interest: Interest, shared: Bool) {
        inner.add(fd, interest: interest, shared: shared)
        if handlingBatch, !shared { addedInBatch.append(fd) }
    }

    func modify(_ fd: Int32, interest: Interest) { inner.modify(fd, interest: interest) }
    func remove(_ fd: Int32) { inner.remove(fd) }
    func wait(timeoutMilliseconds: Int32) -> Bool { inner.wait(timeoutMilliseconds: timeoutMilliseconds) }

    func forEachReady(_ report: (Readiness) -> Void) {
        handlingBatch = true
        inner.forEachReady(report)
        for fd in addedInBatch { report(Readiness(fd: fd, readable: true, writable: true, hangUp: true, error: true)) }
        addedInBatch = []
        handlingBatch = false
    }
}

@Suite struct StaleReadinessTests {
    /// Before the loop delivered a batch's events only to connections older than the batch, the stale
    /// error closed every new connection at once.
    @Test(arguments: [1, 2])
    func aConnectionAcceptedDuringABatchIgnoresThatBatchsEvents(loops: Int) async throws {
        try await withServer(configure: { configuration in
            configuration.eventLoopCount = loops
            configuration.wrapEventQueue = { StaleReadinessQueue($0) }
        }) { server in
            for _ in 0..<4 {
                let client = try RawClient(port: server.plainPort)
                try client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let response = try #require(client.readResponse(), "the new connection was closed")
                #expect(response.status == 200)
                #expect(response.text == "hello")
            }
        }
    }
}
