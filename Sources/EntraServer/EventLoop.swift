import EntraHTTP
private import COpenSSLShims
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket and what connections accepted on it need to know.
struct ListenerInfo: Sendable {
    let fd: Int32
    let port: Int
    let tls: TLSContext?
}

/// One thread, one event queue (epoll, kqueue or poll): it accepts, reads, answers and times out its own connections.
/// All mutable state below the inbox is touched only by the loop's thread.
final class EventLoop: @unchecked Sendable {
    enum Command: Sendable {
        case adopt(fd: Int32, listener: ListenerInfo, remoteAddress: String)
        /// A worker finished the request of the connection with this descriptor and serial number (a
        /// descriptor closed meanwhile may already belong to a newer connection).
        case responseReady(fd: Int32, serial: UInt64, response: HTTPResponse)
        case shutdown
    }

    let index: Int
    let server: ServerCore
    private let queue: any EventQueue
    private let wake: WakeSignal
    private let inbox = Mutex<[Command]>([])
    /// Set while a wake-up is on its way: workers finishing many answers write the eventfd once.
    private let wakePending = Atomic<Bool>(false)

    private var connections: [Int32: Connection] = [:]
    private var listeners: [Int32: ListenerInfo] = [:]
    /// Set while the listeners are out of this loop's queue because `accept` found no descriptor free
    /// (EMFILE, ENFILE): level-triggered, a listener with a client waiting would wake the loop at once, for
    /// ever. They come back when one of this loop's connections closes, or at this instant (another
    /// loop's or another file's descriptor may free), whichever is first.
    private var listenersPausedUntil: UInt64?
    /// The next pause's length: doubled while accepting keeps failing, reset by an accept that works.
    private var acceptBackoff: UInt64 = EventLoop.shortestAcceptBackoff
    static let shortestAcceptBackoff: UInt64 = 10_000_000
    static let longestAcceptBackoff: UInt64 = 1_000_000_000
    private var nextSerial: UInt64 = 0
    /// TLS handshakes in progress on this loop, and the connections waiting for one of its slots (in
    /// arrival order): a pending handshake holds OpenSSL's record buffers, so their number is bounded.
    private var pendingHandshakes = 0
    private var handshakeLimit: Int
    private var handshakeWaiters: [Connection] = []
    /// Slot holders in the order they got their slot, pruned as the oldest are looked at.
    private var handshakeHolders: [(connection: Connection, since: UInt64)] = []
    private var handshakeHoldersHead = 0
    /// How long a handshake may wait for its client before a newcomer may take its slot: a loopback or
    /// LAN client answers the server's flight within a few milliseconds.
    static let stalledHandshakeAge: UInt64 = 100_000_000
    private var handshakeWaitersHead = 0
    /// The waiting connection whose turn it is, while `grantHandshakeSlots` calls it.
    private var handshakeTurn: Connection?
    /// Connections whose reads were spent while TLS held input the queue will not announce: reported
    /// readable again after the next wait, which then does not block.
    private var anotherTurn: [Connection] = []
    let scratch: UnsafeMutableRawBufferPointer
    private(set) var now: UInt64 = monotonicNanoseconds()
    private(set) var isShuttingDown = false
    private var forceCloseAt: UInt64 = 0
    private var nextScan: UInt64 = 0
    private var earliestDue: UInt64 = .max
    private let scanInterval: UInt64
    let timeoutSpans: ConnectionTimeouts.Spans
    private var logBuffer: [UInt8] = []
    private var dateSecond = 0
    private(set) var dateText = ""

    init(index: Int, server: ServerCore) throws(SocketError) {
        self.index = index
        self.server = server
        let queue = try server.configuration.eventBackend.makeQueue()
        self.queue = server.configuration.wrapEventQueue?(queue) ?? queue
        wake = try WakeSignal()
        scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        handshakeLimit = max(8, server.configuration.maxPendingHandshakes / max(1, server.configuration.eventLoopCount))
        let config = server.configuration
        timeoutSpans = ConnectionTimeouts.Spans(config)
        let shortest = min(config.headerTimeout, config.bodyTimeout, config.idleTimeout, config.handshakeTimeout, config.lingerTimeout).nanoseconds
        scanInterval = min(max(shortest / 4, 5_000_000), 250_000_000)
        self.queue.add(wake.readFD, interest: .readable, shared: false)
    }

    deinit { scratch.deallocate() }

    /// Thread-safe: queues a command and wakes the loop.
    func send(_ command: Command) {
        inbox.withLock { $0.append(command) }
        guard !wakePending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        wake.signal()
    }

    /// Routes `request` once and answers it on the loop when the responder says it may (see
    /// `HTTPResponder.answersOnLoop`); else runs the responder on a worker, whose answer comes back through
    /// the inbox, and returns nil.
    func serve(_ request: HTTPRequest, context: ConnectionFacts, for connection: Connection) -> HTTPResponse? {
        serve(request, by: server.responder, context: context, for: connection)
    }

    private func serve<Responder: HTTPResponder>(_ request: HTTPRequest, by responder: Responder, context: ConnectionFacts,
                                                 for connection: Connection) -> HTTPResponse? {
        let route = responder.route(request)
        if responder.answersOnLoop(request, route: route) { return responder.respond(to: request, route: route, context: context) }
        let (fd, serial) = (connection.fd, connection.serial)
        server.workers.submit { [self] in
            send(.responseReady(fd: fd, serial: serial, response: responder.respond(to: request, route: route, context: context)))
        }
        return nil
    }

    func addListener(_ listener: ListenerInfo) {
        listeners[listener.fd] = listener
        // Every loop waits on every listener; epoll wakes one of them per connection.
        queue.add(listener.fd, interest: .readable, shared: true)
    }

    func run() {
        while true {
            now = monotonicNanoseconds()
            if isShuttingDown, connections.isEmpty || now >= forceCloseAt { break }
            guard queue.wait(timeoutMilliseconds: anotherTurn.isEmpty ? waitTimeoutMilliseconds() : 0) else { break }
            now = monotonicNanoseconds()
            // A connection that closes during the batch frees its number, which the kernel may give to one
            // accepted (or adopted) later in the same batch; the batch's events for that number are the
            // closed one's (a stale hang-up would close the newcomer mid-handshake). So only connections
            // older than the batch get its events; a newcomer's own readiness comes at the next wait.
            let firstSerialOfBatch = nextSerial + 1
            queue.forEachReady { readiness in
                if readiness.fd == wake.readFD {
                    drainInbox()
                } else if let listener = listeners[readiness.fd] {
                    accept(on: listener)
                } else if let connection = connections[readiness.fd], connection.serial < firstSerialOfBatch {
                    connection.handle(readiness)
                }
            }
            giveTurns()
            if let until = listenersPausedUntil, now >= until { resumeListeners() }
            if now >= nextScan || now >= earliestDue { scanTimers() }
            grantHandshakeSlots()
            flushLog()
        }
        for connection in Array(connections.values) { connection.close() }
        flushLog()
        server.loopDidStop()
    }

    // MARK: Connections

    func modify(_ fd: Int32, interest: Interest) { queue.modify(fd, interest: interest) }

    func giveAnotherTurn(to connection: Connection) {
        guard !connection.hasTurnPending else { return }
        connection.hasTurnPending = true
        anotherTurn.append(connection)
    }

    /// After the batch of ready connections: each connection that asked is reported readable, once, if
    /// it is still open (a closed one's number may already belong to a newcomer).
    private func giveTurns() {
        guard !anotherTurn.isEmpty else { return }
        let turns = anotherTurn
        anotherTurn.removeAll(keepingCapacity: true)
        for connection in turns {
            connection.hasTurnPending = false
            if connections[connection.fd] === connection { connection.handle(Readiness(fd: connection.fd, readable: true)) }
        }
    }

    /// Called by a connection just before it closes its descriptor.
    func forget(_ connection: Connection) {
        queue.remove(connection.fd)
        connections.removeValue(forKey: connection.fd)
        server.connectionClosed()
        // The descriptor about to close is one an accept can have.
        if listenersPausedUntil != nil { listenersPausedUntil = now }
    }

    /// A connection's next deadline. The periodic scan finds it anyway; one due before that scan
    /// (a delayed answer, a short timeout) brings the scan forward.
    func scheduleTimer(at instant: UInt64) {
        if instant != 0, instant < nextScan { earliestDue = min(earliestDue, instant) }
    }

    /// A connection that sent a ClientHello asks before OpenSSL reads it; false puts it in line.
    func claimHandshakeSlot(for connection: Connection) -> Bool {
        if pendingHandshakes < handshakeLimit, handshakeWaitersHead == handshakeWaiters.count || handshakeTurn === connection {
            pendingHandshakes += 1
            handshakeHolders.append((connection, now))
            return true
        }
        if pendingHandshakes >= handshakeLimit, displaceStalledHandshake() {
            pendingHandshakes += 1
            handshakeHolders.append((connection, now))
            return true
        }
        if !connection.isWaitingForHandshakeSlot { handshakeWaiters.append(connection) }
        return false
    }

    /// Every slot is held: the holder that has waited longest for its client, if that is longer than a
    /// handshake needs, is closed and its slot goes to the newcomer. A client that sends a ClientHello
    /// and never answers the server's flight would otherwise keep every slot until its deadline, and
    /// thousands of them would keep new clients out for minutes. (Slots are only given to whole
    /// ClientHellos, so a holder is always waiting for its client, never for this loop.)
    private func displaceStalledHandshake() -> Bool {
        while handshakeHoldersHead < handshakeHolders.count {
            let (holder, since) = handshakeHolders[handshakeHoldersHead]
            guard holder.isOpen, holder.holdsHandshakeSlot else {
                handshakeHoldersHead += 1
                continue
            }
            guard now &- since >= Self.stalledHandshakeAge else { return false }
            handshakeHoldersHead += 1
            holder.close()
            compactHandshakeHolders()
            return true
        }
        compactHandshakeHolders()
        return false
    }

    private func compactHandshakeHolders() {
        guard handshakeHoldersHead > 1024, handshakeHoldersHead * 2 > handshakeHolders.count else { return }
        handshakeHolders.removeFirst(handshakeHoldersHead)
        handshakeHoldersHead = 0
    }

    func releaseHandshakeSlot() { pendingHandshakes -= 1 }

    /// Once per iteration (never from inside a connection's own call): waiting connections take the
    /// slots freed meanwhile, oldest first, and those of holders stalled past `stalledHandshakeAge`
    /// (a line that formed while every holder was young still moves once they stall); the closed ones
    /// (handshake timeout) are dropped.
    private func grantHandshakeSlots() {
        while handshakeWaitersHead < handshakeWaiters.count {
            let connection = handshakeWaiters[handshakeWaitersHead]
            guard connection.isOpen, connection.isWaitingForHandshakeSlot else {
                handshakeWaitersHead += 1
                continue
            }
            if pendingHandshakes >= handshakeLimit, !displaceStalledHandshake() { break }
            handshakeWaitersHead += 1
            handshakeTurn = connection
            connection.handshakeSlotGranted()
            handshakeTurn = nil
        }
        if handshakeWaitersHead == handshakeWaiters.count {
            handshakeWaiters.removeAll(keepingCapacity: handshakeWaiters.capacity <= 4096)
            handshakeWaitersHead = 0
        }
    }

    private func accept(on listener: ListenerInfo) {
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    TLSShims_acceptNonBlocking(listener.fd, $0, &length)
                }
            }
            if fd < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pauseListeners()
                    return
                default:
                    // The listener was shut down (graceful stop): stop watching it here.
                    listeners.removeValue(forKey: listener.fd)
                    queue.remove(listener.fd)
                    return
                }
            }
            acceptBackoff = Self.shortestAcceptBackoff
            guard !isShuttingDown, server.reserveConnection() else {
                close(fd)
                continue
            }
            Socket.setNoDelay(fd)
            let target = server.nextLoop()
            let remote = Socket.describe(storage: storage)
            if target === self {
                adopt(fd: fd, listener: listener, remoteAddress: remote)
            } else {
                target.send(.adopt(fd: fd, listener: listener, remoteAddress: remote))
            }
        }
    }

    private func pauseListeners() {
        guard listenersPausedUntil == nil else { return }
        for fd in listeners.keys { queue.remove(fd) }
        listenersPausedUntil = now.saturatingAdding(acceptBackoff)
        acceptBackoff = min(acceptBackoff * 2, Self.longestAcceptBackoff)
    }

    private func resumeListeners() {
        listenersPausedUntil = nil
        guard !isShuttingDown else { return }
        for fd in listeners.keys { queue.add(fd, interest: .readable, shared: true) }
    }

    private func adopt(fd: Int32, listener: ListenerInfo, remoteAddress: String) {
        guard !isShuttingDown else {
            close(fd)
            server.connectionClosed()
            return
        }
        nextSerial += 1
        let connection = Connection(fd: fd, serial: nextSerial, listener: listener, remoteAddress: remoteAddress, loop: self)
        connections[fd] = connection
        // The connection's state machine starts out wanting exactly this.
        queue.add(fd, interest: .readable, shared: false)
    }

    private func drainInbox() {
        // Drained, then cleared, then the inbox taken: a sender that still saw the flag set queued its
        // command before the clear, so it is taken below; one that sees it clear signals again after
        // the drain. (Clearing before draining lost a wake-up under load.)
        wake.drain()
        wakePending.store(false, ordering: .sequentiallyConsistent)
        let commands = inbox.withLock { commands in
            defer { commands.removeAll(keepingCapacity: true) }
            return commands
        }
        for command in commands {
            switch command {
            case .adopt(let fd, let listener, let remote): adopt(fd: fd, listener: listener, remoteAddress: remote)
            case .responseReady(let fd, let serial, let response):
                if let connection = connections[fd], connection.serial == serial { connection.responseReady(response) }
            case .shutdown: beginShutdown()
            }
        }
    }

    private func beginShutdown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        forceCloseAt = now.saturatingAdding(server.configuration.shutdownGracePeriod.nanoseconds)
        if listenersPausedUntil == nil { for fd in listeners.keys { queue.remove(fd) } }
        listenersPausedUntil = nil
        listeners.removeAll()
        server.loopReleasedListeners()
        for connection in Array(connections.values) { connection.shutdownRequested() }
    }

    // MARK: Timers

    private func waitTimeoutMilliseconds() -> Int32 {
        var wake = min(nextScan, earliestDue)
        if isShuttingDown { wake = min(wake, forceCloseAt) }
        if let until = listenersPausedUntil { wake = min(wake, until) }
        guard wake > now else { return 0 }
        return Int32(min((wake - now + 999_999) / 1_000_000, 1000))
    }

    /// A deadline scan every `scanInterval`: cheap enough for thousands of connections, and precise
    /// enough for second-scale timeouts. A deadline due before the next scan brings it forward.
    private func scanTimers() {
        nextScan = now + scanInterval
        earliestDue = .max
        for connection in Array(connections.values) {
            let due = connection.deadline
            guard due != 0 else { continue }
            if due <= now { connection.timerFired() }
            let next = connection.deadline
            if connection.isOpen, next != 0, next > now, next < nextScan { earliestDue = min(earliestDue, next) }
        }
    }

    // MARK: Date and access log

    /// The IMF-fixdate for the current second, formatted once per second per loop.
    var currentDate: String {
        let seconds = time(nil)
        if seconds != dateSecond {
            dateSecond = seconds
            dateText = HTTPDate.format(secondsSince1970: seconds)
        }
        return dateText
    }

    /// The line is only formatted when a log is kept.
    func log(_ makeLine: @autoclosure () -> String) {
        switch server.configuration.accessLog {
        case .disabled: return
        case .custom(let sink): sink(makeLine())
        case .standardError:
            let line = makeLine()
            // Lines are batched per loop iteration; a batch stays under PIPE_BUF so loops never interleave mid-line.
            if logBuffer.count + line.utf8.count + 1 > 4096 { flushLog() }
            logBuffer.append(contentsOf: line.utf8)
            logBuffer.append(UInt8(ascii: "\n"))
        }
    }

    private func flushLog() {
        guard !logBuffer.isEmpty else { return }
        _ = logBuffer.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        logBuffer.removeAll(keepingCapacity: true)
    }
}
