import Dispatch
import Synchronization

/// Ends a blocking exchange when its deadline passes, whatever call it is blocked in: socket timeouts
/// bound each call (one read of the TLS handshake, one send), not their sum, so a peer that trickles a
/// byte at a time would otherwise hold the exchange, and the worker thread under it, as long as it likes.
final class ExchangeWatchdog {
    enum Ending { case inTime, fired }

    /// What the alarm and the exchange share.
    private final class Watch: Sendable {
        struct State {
            /// The socket to shut down; nil once the exchange ended, so a number the system hands out
            /// again is never touched.
            var fd: Int32?
            var fired = false
        }
        let state: Mutex<State>

        init(fd: Int32) { state = Mutex(State(fd: fd)) }
    }

    private let watch: Watch
    private let alarm: DispatchWorkItem

    init(fd: Int32, end: ContinuousClock.Instant) {
        let watch = Watch(fd: fd)
        self.watch = watch
        alarm = DispatchWorkItem {
            watch.state.withLock { state in
                guard let fd = state.fd else { return }
                state.fired = true
                Socket.shutdown(fd, .both)
            }
        }
        if let interval = Self.interval(until: end) { DispatchQueue.global().asyncAfter(deadline: .now() + interval, execute: alarm) }
    }

    /// Ends the watch before the socket is closed: whether the deadline cut the exchange, decided once.
    func finish() -> Ending {
        alarm.cancel()
        return watch.state.withLock { state in
            state.fd = nil
            return state.fired ? .fired : .inTime
        }
    }

    /// The time until `end`; nil beyond a day, a deadline the socket timeouts are left to keep (Dispatch
    /// counts in nanoseconds that a far one would overflow).
    private static func interval(until end: ContinuousClock.Instant) -> DispatchTimeInterval? {
        let left = ContinuousClock.now.duration(to: end).components
        guard left.seconds <= 86_400 else { return nil }
        return .nanoseconds(Int(max(left.seconds, 0)) * 1_000_000_000 + Int(max(left.attoseconds, 0) / 1_000_000_000))
    }
}
