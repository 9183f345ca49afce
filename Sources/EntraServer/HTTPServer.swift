package import EntraHTTP
import FoundationGaps
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Our HTTP/1.1 server: POSIX sockets, one event loop per core (epoll, kqueue or poll), a worker pool
/// for the handlers, optional TLS per listener.
///
///     let server = try HTTPServer(configuration: .init(tlsPort: 8443, tls: tls, plainPort: 8080), responder: app)
///     let addresses = try server.start()      // listening when this returns
///     server.stopOnSignals()                  // SIGINT/SIGTERM → graceful shutdown
///     await server.waitUntilStopped()
package final class HTTPServer: Sendable {
    private let core: ServerCore

    /// Loads the TLS certificates now, so a bad path fails before anything listens.
    package init(configuration: ServerConfiguration, responder: any HTTPResponder) throws {
        try configuration.validate()
        var contexts: [TLSContext?] = []
        for listener in configuration.listeners {
            contexts.append(try listener.tls.map { configuration throws(TLSError) in try TLSContext(configuration) })
        }
        core = ServerCore(configuration: configuration, responder: responder, tlsContexts: contexts)
    }

    /// Binds every listener, starts the event loops and returns the bound addresses (port 0 resolved).
    @discardableResult
    package func start() throws -> [BoundAddress] {
        try core.start()
    }

    package var boundAddresses: [BoundAddress] { core.boundAddresses }

    /// Stops accepting, closes idle connections, lets in-flight requests finish within the grace
    /// period, then closes everything. Returns at once; see `waitUntilStopped()`. Safe from any thread.
    package func beginShutdown() { core.beginShutdown() }

    /// Graceful shutdown, returning once every loop has stopped.
    package func shutdown() async {
        core.beginShutdown()
        await core.waitUntilStopped()
    }

    /// Returns once the server has stopped (immediately if it never started).
    package func waitUntilStopped() async { await core.waitUntilStopped() }

    /// Blocking variant for callers without async context (threads, tests' helpers).
    package func waitUntilStoppedBlocking() { core.waitUntilStoppedBlocking() }

    /// Installs handlers so SIGINT and SIGTERM start a graceful shutdown; a second signal exits at once.
    package func stopOnSignals(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        core.stopOnSignals(signals)
    }
}

/// State shared by the loops: configuration, responder, counters, lifecycle.
final class ServerCore: Sendable {
    enum Lifecycle {
        case created, running, stopping, stopped
    }

    struct State {
        var lifecycle: Lifecycle = .created
        var bound: [BoundAddress] = []
        var listenerFDs: [Int32] = []
        var loopsRunning = 0
        /// Loops still watching the listeners; the last one to let go closes them.
        var loopsWatchingListeners = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    /// Runs the responder for every loop; started with the loops, stopped after the last one.
    let workers: WorkerPool
    private let tlsContexts: [TLSContext?]
    private let state = Mutex(State())
    private let stoppedCondition = NSCondition()
    private let connectionCount = Atomic<Int>(0)
    private let roundRobin = Atomic<Int>(0)
    private let loops = Mutex<[EventLoop]>([])
    /// `maxConnections`, lowered to what the open-file limit allows (raised to its hard limit first).
    let connectionCap: Int

    init(configuration: ServerConfiguration, responder: any HTTPResponder, tlsContexts: [TLSContext?]) {
        self.configuration = configuration
        self.responder = responder
        self.tlsContexts = tlsContexts
        self.workers = WorkerPool(threads: configuration.workerCount)
        connectionCap = DescriptorLimit.connectionCap(configured: configuration.maxConnections, softLimit: DescriptorLimit.raiseToHardLimit())
    }

    var boundAddresses: [BoundAddress] { state.withLock { $0.bound } }

    func start() throws -> [BoundAddress] {
        try state.withLock { state in
            guard state.lifecycle == .created else { throw SocketError(operation: "start", code: EALREADY, message: "server already started") }
            state.lifecycle = .running
        }
        // OpenSSL writes to sockets itself; a peer that vanished must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        var listenerInfos: [ListenerInfo] = []
        var bound: [BoundAddress] = []
        do {
            for (index, listener) in configuration.listeners.enumerated() {
                let fds = try bindListener(listener)
                for fd in fds {
                    let local = Socket.localAddress(fd)
                    listenerInfos.append(ListenerInfo(fd: fd, port: local.port, tls: tlsContexts[index]))
                    bound.append(BoundAddress(host: local.host, port: local.port, isTLS: listener.tls != nil))
                }
            }
            let created = try (0..<max(1, configuration.eventLoopCount)).map { index throws(SocketError) in try EventLoop(index: index, server: self) }
            loops.withLock { $0 = created }
            for loop in created {
                for info in listenerInfos { loop.addListener(info) }
            }
            state.withLock {
                $0.bound = bound
                $0.listenerFDs = listenerInfos.map(\.fd)
                $0.loopsRunning = created.count
                $0.loopsWatchingListeners = created.count
            }
            workers.start()
            for loop in created {
                NamedThread.start("fe-loop-\(loop.index)") { loop.run() }
            }
        } catch {
            for info in listenerInfos { close(info.fd) }
            state.withLock { $0.lifecycle = .stopped }
            throw error
        }
        return bound
    }

    /// Binds one configured listener: one socket per resolved address, all on the same port.
    private func bindListener(_ listener: ListenerConfiguration) throws -> [Int32] {
        let addresses = try Socket.resolve(host: listener.host, port: listener.port)
        var attempt = 0
        while true {
            var fds: [Int32] = []
            var port = listener.port
            do {
                for address in addresses {
                    let fd = try Socket.makeListener(address, port: port, backlog: 1024)
                    fds.append(fd)
                    port = Socket.localAddress(fd).port
                }
                return fds
            } catch {
                for fd in fds { close(fd) }
                // With port 0 the port chosen for the first address may be taken on the second.
                attempt += 1
                if listener.port != 0 || addresses.count == 1 || attempt >= 5 { throw error }
            }
        }
    }

    func beginShutdown() {
        let (fds, activeLoops): ([Int32], [EventLoop]) = state.withLock { state in
            guard state.lifecycle == .running else { return ([], []) }
            state.lifecycle = .stopping
            return (state.listenerFDs, loops.withLock { $0 })
        }
        if activeLoops.isEmpty {
            finishIfNeverStarted()
            return
        }
        // Refuse new connections at once where the kernel can (shutdown(2) of a listener is ENOTCONN on
        // Darwin, which goes on accepting into the backlog until the descriptor is closed); the
        // descriptors are closed once every loop has let go of them, so no loop accepts on a number
        // that was closed and reused.
        #if os(Linux)
        for fd in fds { Socket.shutdown(fd, .both) }
        #endif
        for loop in activeLoops { loop.send(.shutdown) }
    }

    /// A loop has stopped watching the listeners: the last one closes them, so new connections are
    /// refused while in-flight requests finish.
    func loopReleasedListeners() {
        state.withLock { state in
            state.loopsWatchingListeners -= 1
            guard state.loopsWatchingListeners == 0 else { return }
            for fd in state.listenerFDs { close(fd) }
            state.listenerFDs = []
        }
    }

    func nextLoop() -> EventLoop {
        loops.withLock { loops in loops[roundRobin.add(1, ordering: .relaxed).oldValue % loops.count] }
    }

    func reserveConnection() -> Bool {
        let previous = connectionCount.add(1, ordering: .relaxed).oldValue
        if previous >= connectionCap {
            connectionCount.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func connectionClosed() { connectionCount.subtract(1, ordering: .relaxed) }

    func loopDidStop() {
        let waiters: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            state.loopsRunning -= 1
            guard state.loopsRunning == 0 else { return nil }
            workers.stop()
            for fd in state.listenerFDs { close(fd) }
            state.listenerFDs = []
            state.lifecycle = .stopped
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return }
        stoppedCondition.broadcast()
        for waiter in waiters { waiter.resume() }
    }

    private func finishIfNeverStarted() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.lifecycle == .created || state.lifecycle == .stopping, state.loopsRunning == 0 else { return [] }
            state.lifecycle = .stopped
            defer { state.waiters = [] }
            return state.waiters
        }
        stoppedCondition.broadcast()
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.lifecycle == .stopped || state.lifecycle == .created { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func waitUntilStoppedBlocking() {
        stoppedCondition.lock()
        while !state.withLock({ $0.lifecycle == .stopped || $0.lifecycle == .created }) {
            _ = stoppedCondition.wait(until: Date().addingTimeInterval(0.05))
        }
        stoppedCondition.unlock()
    }

    func stopOnSignals(_ signals: [Int32]) {
        SignalRelay.install(signals) { [self] number in
            let alreadyStopping = state.withLock { $0.lifecycle == .stopping }
            if alreadyStopping { exit(128 + number) }
            beginShutdown()
        }
    }
}
