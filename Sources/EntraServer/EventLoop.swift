#if os(Linux)
import EntraHTTP
import Glibc
private import COpenSSLShims
import Synchronization

/// A listening socket and what connections accepted on it need to know.
struct ListenerInfo: Sendable {
    let fd: Int32
    let port: Int
    let tls: TLSContext?
}

/// One thread, one epoll set: it accepts, reads, answers and times out its own connections.
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
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[Command]>([])
    /// Set while a wake-up is on its way: workers finishing many answers write the eventfd once.
    private let wakePending = Atomic<Bool>(false)

    private var connections: [Int32: Connection] = [:]
    private var listeners: [Int32: ListenerInfo] = [:]
    private var nextSerial: UInt64 = 0
    let scratch: UnsafeMutableRawBufferPointer
    private(set) var now: UInt64 = monotonicNanoseconds()
    private(set) var isShuttingDown = false
    private var forceCloseAt: UInt64 = 0
    private var nextScan: UInt64 = 0
    private var earliestDelayDue: UInt64 = .max
    private let scanInterval: UInt64
    private var logBuffer: [UInt8] = []
    private var dateSecond = 0
    private(set) var dateText = ""

    init(index: Int, server: ServerCore) throws(SocketError) {
        self.index = index
        self.server = server
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .makeFailed("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            close(epollFD)
            throw .makeFailed("eventfd")
        }
        scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        let config = server.configuration
        let shortest = min(config.headerTimeout, config.bodyTimeout, config.idleTimeout, config.handshakeTimeout, config.lingerTimeout).nanoseconds
        scanInterval = min(max(shortest / 4, 5_000_000), 250_000_000)
        register(wakeFD, events: EPOLLIN.rawValue)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
        scratch.deallocate()
    }

    /// Thread-safe: queues a command and wakes the loop.
    func send(_ command: Command) {
        inbox.withLock { $0.append(command) }
        guard !wakePending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs the responder for `connection` on a worker; the answer comes back through the inbox.
    func dispatch(_ request: HTTPRequest, context: RequestContext, for connection: Connection) {
        let responder = server.responder
        let (fd, serial) = (connection.fd, connection.serial)
        server.workers.submit { [self] in
            send(.responseReady(fd: fd, serial: serial, response: responder.respond(to: request, context: context)))
        }
    }

    func addListener(_ listener: ListenerInfo) {
        listeners[listener.fd] = listener
        // Every loop waits on every listener; EPOLLEXCLUSIVE wakes one of them per connection.
        register(listener.fd, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
    }

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            now = monotonicNanoseconds()
            if isShuttingDown, connections.isEmpty || now >= forceCloseAt { break }
            let timeout = waitTimeoutMilliseconds()
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout) }
            now = monotonicNanoseconds()
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for slot in 0..<Int(count) {
                let fd = events[slot].data.fd
                let flags = events[slot].events
                if fd == wakeFD {
                    drainInbox()
                } else if let listener = listeners[fd] {
                    accept(on: listener)
                } else if let connection = connections[fd] {
                    connection.handle(events: flags)
                }
            }
            if now >= nextScan || now >= earliestDelayDue { scanTimers() }
            flushLog()
        }
        for connection in Array(connections.values) { connection.close() }
        flushLog()
        server.loopDidStop()
    }

    // MARK: Connections

    func register(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
    }

    func modify(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Called by a connection when it closes its descriptor.
    func forget(_ connection: Connection) {
        connections.removeValue(forKey: connection.fd)
        server.connectionClosed()
    }

    func scheduleDelay(until due: UInt64) { earliestDelayDue = min(earliestDelayDue, due) }

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
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return  // Retried when the listener is readable again.
                default:
                    // The listener was shut down (graceful stop): stop watching it here.
                    listeners.removeValue(forKey: listener.fd)
                    _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listener.fd, nil)
                    return
                }
            }
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

    private func adopt(fd: Int32, listener: ListenerInfo, remoteAddress: String) {
        guard !isShuttingDown else {
            close(fd)
            server.connectionClosed()
            return
        }
        nextSerial += 1
        let connection = Connection(fd: fd, serial: nextSerial, listener: listener, remoteAddress: remoteAddress, loop: self)
        connections[fd] = connection
        register(fd, events: EPOLLIN.rawValue)
        connection.registeredEvents = EPOLLIN.rawValue
    }

    private func drainInbox() {
        // Cleared before the inbox is taken: a command queued after this point writes the eventfd again.
        wakePending.store(false, ordering: .sequentiallyConsistent)
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
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
        for fd in listeners.keys { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
        listeners.removeAll()
        for connection in Array(connections.values) { connection.shutdownRequested() }
    }

    // MARK: Timers

    private func waitTimeoutMilliseconds() -> Int32 {
        var wake = min(nextScan, earliestDelayDue)
        if isShuttingDown { wake = min(wake, forceCloseAt) }
        guard wake > now else { return 0 }
        return Int32(min((wake - now + 999_999) / 1_000_000, 1000))
    }

    /// A deadline scan every `scanInterval`: cheap enough for thousands of connections, and precise
    /// enough for second-scale timeouts. Delayed responses also trigger a scan when due.
    private func scanTimers() {
        nextScan = now + scanInterval
        earliestDelayDue = .max
        for connection in Array(connections.values) {
            if let due = connection.delayedDue {
                if due <= now {
                    connection.releaseDelayedResponse()
                } else {
                    earliestDelayDue = min(earliestDelayDue, due)
                    continue
                }
            }
            if connection.isOpen, connection.deadline != 0, connection.deadline <= now { connection.timedOut() }
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
#endif
