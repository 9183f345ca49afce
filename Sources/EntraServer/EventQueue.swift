#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a loop wants to hear about one descriptor.
struct Interest: OptionSet, Sendable {
    let rawValue: UInt8
    static let readable = Interest(rawValue: 1)
    static let writable = Interest(rawValue: 2)
}

/// One descriptor's readiness, in the same words whatever the backend.
struct Readiness {
    var fd: Int32
    var readable = false
    var writable = false
    /// The peer is gone both ways (or, for kqueue, has sent EOF on the watched direction).
    var hangUp = false
    var error = false
}

/// The seam between an event loop and the kernel's readiness API. Level-triggered everywhere: a
/// descriptor stays ready until it is read or written, so a connection may stop early and be called again.
protocol EventQueue: AnyObject {
    /// `shared`: the descriptor is watched by every loop (a listener); a backend that can wakes one
    /// loop per event (EPOLLEXCLUSIVE), the others accept from it and find nothing.
    func add(_ fd: Int32, interest: Interest, shared: Bool)
    func modify(_ fd: Int32, interest: Interest)
    func remove(_ fd: Int32)
    /// Waits up to `timeoutMilliseconds` for readiness. False on a failure other than an interruption
    /// (the loop then stops).
    func wait(timeoutMilliseconds: Int32) -> Bool
    /// Reports each descriptor found ready by the last `wait` (the loop reads its clock in between).
    func forEachReady(_ report: (Readiness) -> Void)
}

/// Which kernel API the loops use: epoll on Linux, kqueue on Darwin (and on Linux over an emulation, for
/// CI), or poll(2), which runs on both (`--event-backend`, `FAKEENTRA_EVENT_BACKEND`).
package enum EventBackend: String, Sendable, CaseIterable {
    case epoll, kqueue, poll

    /// This platform's native backend.
    package static var native: EventBackend {
        #if os(Linux)
        .epoll
        #else
        .kqueue
        #endif
    }

    /// kqueue is available on Linux too, emulated over epoll so that CI runs the Mac's backend.
    package var isAvailable: Bool {
        switch self {
        case .poll, .kqueue: true
        case .epoll: Self.native == .epoll
        }
    }

    func makeQueue() throws(SocketError) -> any EventQueue {
        switch self {
        case .poll: return PollQueue()
        case .kqueue: return try KqueueQueue()
        #if os(Linux)
        case .epoll: return try EpollQueue()
        #else
        case .epoll: throw SocketError(operation: "event backend \(rawValue)", code: 0, message: "not available on this system")
        #endif
        }
    }
}

/// poll(2): portable (POSIX), one array of `pollfd` rebuilt by index. O(n) per wait, which is fine for
/// the thousands of connections a local development server sees.
final class PollQueue: EventQueue {
    private var entries: [pollfd] = []
    private var slots: [Int32: Int] = [:]
    private var ready: [Readiness] = []

    func add(_ fd: Int32, interest: Interest, shared: Bool) {
        slots[fd] = entries.count
        entries.append(pollfd(fd: fd, events: Self.flags(interest), revents: 0))
    }

    func modify(_ fd: Int32, interest: Interest) {
        guard let slot = slots[fd] else { return }
        entries[slot].events = Self.flags(interest)
    }

    func remove(_ fd: Int32) {
        guard let slot = slots.removeValue(forKey: fd) else { return }
        let last = entries.removeLast()
        if slot < entries.count {
            entries[slot] = last
            slots[last.fd] = slot
        }
    }

    func wait(timeoutMilliseconds: Int32) -> Bool {
        ready.removeAll(keepingCapacity: true)
        let count = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        if count < 0 { return errno == EINTR }
        // Collected now: reporting may add, modify or remove descriptors, which moves entries.
        for entry in entries where entry.revents != 0 {
            let events = Int32(entry.revents)
            ready.append(Readiness(fd: entry.fd, readable: events & Int32(POLLIN) != 0, writable: events & Int32(POLLOUT) != 0,
                                   hangUp: events & Int32(POLLHUP) != 0, error: events & Int32(POLLERR | POLLNVAL) != 0))
        }
        return true
    }

    func forEachReady(_ report: (Readiness) -> Void) {
        // A descriptor removed by an earlier report this round is skipped.
        for readiness in ready where slots[readiness.fd] != nil { report(readiness) }
    }

    private static func flags(_ interest: Interest) -> Int16 {
        var events: Int16 = 0
        if interest.contains(.readable) { events |= Int16(POLLIN) }
        if interest.contains(.writable) { events |= Int16(POLLOUT) }
        return events
    }
}
