#if os(Linux)
import Glibc
private import COpenSSLShims

/// epoll(7), level-triggered; listeners are added with EPOLLEXCLUSIVE so one loop wakes per connection.
final class EpollQueue: EventQueue {
    private let epollFD: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 256)
    private var readyCount = 0

    init() throws(SocketError) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .makeFailed("epoll_create1") }
    }

    deinit { close(epollFD) }

    func add(_ fd: Int32, interest: Interest, shared: Bool) {
        control(EPOLL_CTL_ADD, fd, Self.flags(interest) | (shared ? EPOLLEXCLUSIVE.rawValue : 0))
    }

    func modify(_ fd: Int32, interest: Interest) { control(EPOLL_CTL_MOD, fd, Self.flags(interest)) }

    func remove(_ fd: Int32) { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }

    func wait(timeoutMilliseconds: Int32) -> Bool {
        let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeoutMilliseconds) }
        readyCount = max(0, Int(count))
        return count >= 0 || errno == EINTR
    }

    func forEachReady(_ report: (Readiness) -> Void) {
        for slot in 0..<readyCount {
            let flags = events[slot].events
            report(Readiness(fd: events[slot].data.fd,
                             readable: flags & EPOLLIN.rawValue != 0, writable: flags & EPOLLOUT.rawValue != 0,
                             hangUp: flags & EPOLLHUP.rawValue != 0, error: flags & EPOLLERR.rawValue != 0))
        }
    }

    private func control(_ operation: Int32, _ fd: Int32, _ flags: UInt32) {
        var event = epoll_event()
        event.events = flags
        event.data.fd = fd
        _ = epoll_ctl(epollFD, operation, fd, &event)
    }

    private static func flags(_ interest: Interest) -> UInt32 {
        (interest.contains(.readable) ? EPOLLIN.rawValue : 0) | (interest.contains(.writable) ? EPOLLOUT.rawValue : 0)
    }
}
#endif
