#if canImport(Darwin) || os(Linux)
#if canImport(Darwin)
import Darwin
#else
import Glibc
import CKqueueEmulation
#endif

/// kqueue(2), written from Darwin's man page. On Linux it compiles and runs over CKqueueEmulation (the
/// same declarations over epoll), which is how CI exercises the Mac's backend: `--event-backend kqueue`.
/// One read and one write filter per descriptor, both added at once and
/// then enabled or disabled, which keeps them level-triggered like epoll. EV_EOF on the read filter is
/// only a half close (the peer may still read our answer), so it is reported as readable: the
/// connection's next read returns 0 and it decides. Closing a descriptor removes its filters.
/// EV_EOF on the write filter (the reader is gone) is reported as writable: the next send fails and the
/// connection's state machine closes. kevent(2) reports a descriptor ready both ways as two events, so
/// a connection may hear twice in one wait; its state machine treats readiness as flags, so the second
/// report costs at most one read or write that would block. There is no EPOLLEXCLUSIVE: every loop
/// wakes for a new connection on a shared listener, and the ones that lose the race find EAGAIN.
/// Changes are applied with no event list, so a failing change makes kevent return -1 and skip the
/// rest of that list (the man page's rule); both filters are always added together, so deleting
/// them only fails for a descriptor already closed, which has lost its filters anyway.
final class KqueueQueue: EventQueue {
    private let queueFD: Int32
    // `kevent()` would name the function, not the struct: Swift imports both under one name.
    private var events: [kevent] = Array(repeating: KqueueQueue.change(0, 0, 0), count: 256)
    private var readyCount = 0

    init() throws(SocketError) {
        queueFD = kqueue()
        guard queueFD >= 0 else { throw .makeFailed("kqueue") }
        _ = fcntl(queueFD, F_SETFD, FD_CLOEXEC)
    }

    deinit { close(queueFD) }

    func add(_ fd: Int32, interest: Interest, shared: Bool) { apply(fd, interest, adding: true) }

    func modify(_ fd: Int32, interest: Interest) { apply(fd, interest, adding: false) }

    func remove(_ fd: Int32) {
        var changes = [Self.change(fd, EVFILT_READ, EV_DELETE), Self.change(fd, EVFILT_WRITE, EV_DELETE)]
        _ = kevent(queueFD, &changes, Int32(changes.count), nil, 0, nil)
    }

    func wait(timeoutMilliseconds: Int32) -> Bool {
        var timeout = timespec(tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
        let count = events.withUnsafeMutableBufferPointer { kevent(queueFD, nil, 0, $0.baseAddress, Int32($0.count), &timeout) }
        readyCount = max(0, Int(count))
        return count >= 0 || errno == EINTR
    }

    func forEachReady(_ report: (Readiness) -> Void) {
        for slot in 0..<readyCount {
            let event = events[slot]
            let fd = Int32(event.ident)
            if event.flags & UInt16(EV_ERROR) != 0 {
                report(Readiness(fd: fd, error: true))
            } else if event.filter == Int16(EVFILT_READ) {
                report(Readiness(fd: fd, readable: true))
            } else if event.filter == Int16(EVFILT_WRITE) {
                report(Readiness(fd: fd, writable: true))
            }
        }
    }

    private func apply(_ fd: Int32, _ interest: Interest, adding: Bool) {
        let base = adding ? EV_ADD : 0
        var changes = [
            Self.change(fd, EVFILT_READ, base | (interest.contains(.readable) ? EV_ENABLE : EV_DISABLE)),
            Self.change(fd, EVFILT_WRITE, base | (interest.contains(.writable) ? EV_ENABLE : EV_DISABLE)),
        ]
        _ = kevent(queueFD, &changes, Int32(changes.count), nil, 0, nil)
    }

    private static func change(_ fd: Int32, _ filter: Int32, _ flags: Int32) -> kevent {
        kevent(ident: UInt(fd), filter: Int16(filter), flags: UInt16(flags), fflags: 0, data: 0, udata: nil)
    }
}
#endif
