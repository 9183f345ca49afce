/// Which deadline a connection is under and what its expiry means, as a value: events come in with
/// the instant they happened (monotonic nanoseconds), so tests drive every timeout with a fake clock and
/// no sockets. The connection feeds it facts (a byte arrived, a request was decoded, output drained…)
/// and asks `expiry(at:)` when the loop's timer scan passes.
struct ConnectionTimeouts: Equatable {
    enum Timer: Equatable {
        case none
        /// From accept (or from a handshake slot) until the TLS handshake completes.
        case handshake
        /// Until the head of the request being read has arrived (also: before the first request).
        case header
        /// While a body arrives: the stall limit, never past the whole-body deadline.
        case body
        /// A keep-alive connection with nothing in flight.
        case idle
        /// Output is waiting for the peer to read it.
        case writing
        /// Our side is finished; the peer's remaining input is drained until this passes.
        case linger
    }

    enum Expiry: Equatable {
        /// A request was under way: it gets a 408 and the connection closes.
        case requestTimedOut
        case close
    }

    /// The configured spans, in nanoseconds.
    struct Spans: Equatable {
        var handshake: UInt64
        var header: UInt64
        var body: UInt64
        var idle: UInt64
        var linger: UInt64

        init(_ configuration: ServerConfiguration) {
            handshake = configuration.handshakeTimeout.nanoseconds
            header = configuration.headerTimeout.nanoseconds
            body = configuration.bodyTimeout.nanoseconds
            idle = configuration.idleTimeout.nanoseconds
            linger = configuration.lingerTimeout.nanoseconds
        }

        init(handshake: UInt64, header: UInt64, body: UInt64, idle: UInt64, linger: UInt64) {
            (self.handshake, self.header, self.body, self.idle, self.linger) = (handshake, header, body, idle, linger)
        }
    }

    let spans: Spans
    private(set) var timer: Timer = .none
    /// When the current timer expires; 0 when none runs.
    private(set) var deadline: UInt64 = 0
    /// When the body being received must be complete, whatever its pace.
    private var wholeBodyDeadline: UInt64 = 0

    /// A new connection: TLS must finish its handshake in time, plain HTTP must send a head.
    init(spans: Spans, acceptedAt now: UInt64, isTLS: Bool) {
        self.spans = spans
        arm(isTLS ? .handshake : .header, at: now)
    }

    mutating func arm(_ kind: Timer, at now: UInt64) {
        timer = kind
        let span: UInt64? = switch kind {
        case .none: nil
        case .handshake: spans.handshake
        case .header, .body: spans.header
        case .idle, .writing: spans.idle
        case .linger: spans.linger
        }
        deadline = span.map { now.saturatingAdding($0) } ?? 0
        // A body may stall for as long as a head may take, within its own overall deadline.
        if kind == .body { deadline = min(deadline, wholeBodyDeadline) }
    }

    /// Input arrived. The first byte of a request starts its header deadline; body bytes restart the
    /// stall timer, but never past the deadline for the whole body.
    mutating func inputArrived(at now: UInt64, insideRequest: Bool) {
        if timer == .body {
            arm(.body, at: now)
        } else if timer == .idle, insideRequest {
            arm(.header, at: now)
        }
    }

    /// A whole request was decoded: its header and body deadlines end with it.
    mutating func requestDecoded() {
        if timer == .header || timer == .body { arm(.none, at: 0) }
    }

    /// Some output was written and more waits: the peer must keep reading.
    mutating func wrote(at now: UInt64) { arm(.writing, at: now) }

    /// Nothing is in flight and all output is written: the deadline that applies now. Between requests
    /// the idle timeout, except before the first request, which must arrive within the header (or
    /// handshake) timeout counted from accept. A body gets one deadline for the whole of it.
    mutating func settle(at now: UInt64, readingBody: Bool, insideRequest: Bool, answeredBefore: Bool) {
        if readingBody {
            if timer != .body {
                wholeBodyDeadline = now.saturatingAdding(spans.body)
                arm(.body, at: now)
            }
        } else if insideRequest {
            if timer != .header { arm(.header, at: now) }
        } else if answeredBefore, timer != .idle {
            arm(.idle, at: now)
        }
    }

    /// What the connection must do at `now`, or nil when no deadline has passed.
    func expiry(at now: UInt64, insideRequest: Bool) -> Expiry? {
        guard deadline != 0, deadline <= now else { return nil }
        return (timer == .header || timer == .body) && insideRequest ? .requestTimedOut : .close
    }
}
