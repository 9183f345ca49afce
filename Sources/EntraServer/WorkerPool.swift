import FoundationGaps

/// Threads that run handler calls, so an event loop never waits for the application: a slow answer
/// (a scenario rule, a HAR export, an RSA key generation) delays only its own request, never the
/// handshakes, reads and timeouts of the other connections on that loop. Jobs run in the order given.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var next = 0
    private var stopping = false
    private let threadCount: Int

    init(threads: Int) { threadCount = max(1, threads) }

    /// Starts the threads; jobs submitted before wait for them.
    func start() {
        for index in 0..<threadCount {
            NamedThread.start("fe-worker-\(index)") { [self] in work() }
        }
    }

    func submit(_ job: @escaping Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The workers finish the jobs already queued, then exit.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while let job = take() { job() }
    }

    private func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while next == jobs.count, !stopping { condition.wait() }
        guard next < jobs.count else { return nil }
        let job = jobs[next]
        next += 1
        // Taken jobs are dropped in batches: the array is not shifted on every take.
        if next == jobs.count {
            jobs.removeAll(keepingCapacity: jobs.capacity <= 4096)
            next = 0
        } else if next >= 1024 {
            jobs.removeFirst(next)
            next = 0
        }
        return job
    }
}
