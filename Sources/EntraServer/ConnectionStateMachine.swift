import EntraHTTP

/// Everything a connection decides, as a value: events come in (readiness, bytes read, a write's
/// outcome, a worker's answer, a timer, shutdown) with the instant they happened, and `nextAction()`
/// says what the shell must do next (read, write, dispatch, shut down writes, close…). The shell
/// (`Connection`) performs each action with its socket, TLS session and event queue, and reports the
/// outcome as the next event, so every phase, limit and timeout is tested here with a fake clock and
/// no sockets.
///
/// Readiness is remembered as two flags, `canRead` and `canWrite`: set by the event queue's report,
/// cleared by the I/O that found nothing to do. Every action either makes progress or clears the flag
/// it needed, so a wake-up always ends; reads are also bounded per wake-up (fairness between the
/// loop's connections), and one request at a time is with a worker, so pipelined answers keep their order.
struct ConnectionStateMachine {
    /// The request a worker is answering.
    private struct InFlight {
        var isHead: Bool
        var wantsKeepAlive: Bool
        var method: String
        var target: String
        var started: UInt64
    }

    /// Encoded only when due, so that a shutdown begun meanwhile turns it into `Connection: close`.
    private struct DelayedResponse {
        var response: HTTPResponse
        var due: UInt64
        var request: InFlight
        var keepAlive: Bool
    }

    let isTLS: Bool
    let limits: Limits
    private(set) var phase: Phase
    private(set) var decoder: HTTPRequestDecoder
    private(set) var timeouts: ConnectionTimeouts
    /// The IMF-fixdate put on answers; the shell sets it before an event that may answer.
    var date = ""

    private var output: [UInt8] = []
    private var outputOffset = 0
    /// A TLS write that returned WANT_* must be retried with the same length.
    private var retryWriteLength = 0
    private var canRead = false
    private var canWrite = true
    private var readWantsWrite = false
    private var writeWantsRead = false
    private var readsThisWakeUp = 0
    /// The transport may hold input the event queue will never announce (TLS: records read ahead,
    /// decrypted bytes).
    private var transportHoldsInput = false
    /// Asked for another turn since the read budget was last renewed (the shell gives it only when the
    /// socket is empty; otherwise the queue's next report serves).
    private var awaitsAnotherTurn = false
    private var peerClosed = false
    private var hangUpPending = false
    private var closeWhenFlushed = false
    private var closeAfterDiscarding = false
    private var mustClose = false
    private(set) var holdsHandshakeSlot = false
    /// The handshake finished: the loop's slot must be given back once.
    private var slotToRelease = false
    private(set) var isWaitingForHandshakeSlot = false
    private var handshakeInterest: Interest = .readable
    private var handshakePending = false
    private var inFlight: InFlight?
    private var delayed: DelayedResponse?
    private var answeredRequests = 0
    private(set) var isShuttingDown = false
    private var forceCloseAt: UInt64 = 0
    private var announcedDeadline: UInt64 = 0
    private(set) var registeredInterest: Interest = .readable
    private var now: UInt64

    init(isTLS: Bool, decoderLimits: HTTPRequestDecoder.Limits, spans: ConnectionTimeouts.Spans, acceptedAt now: UInt64) {
        self.isTLS = isTLS
        self.limits = Limits(decoder: decoderLimits)
        self.decoder = HTTPRequestDecoder(limits: decoderLimits)
        self.timeouts = ConnectionTimeouts(spans: spans, acceptedAt: now, isTLS: isTLS)
        self.now = now
        phase = isTLS ? .sniffing : .open
        announcedDeadline = timeouts.deadline
    }

    var isOpen: Bool { phase != .closed }

    /// The earliest instant something is due (a timeout, a delayed answer, the end of the shutdown
    /// grace); 0 when nothing is.
    var deadline: UInt64 {
        func earlier(_ a: UInt64, _ b: UInt64) -> UInt64 { a == 0 ? b : b == 0 ? a : min(a, b) }
        return earlier(earlier(timeouts.deadline, delayed?.due ?? 0), forceCloseAt)
    }

    private var unsentCount: Int { output.count - outputOffset }
    private var isAwaitingAnswer: Bool { inFlight != nil || delayed != nil }

    /// Backpressure both ways: input is not read while enough of it waits to be answered, nor while
    /// the peer is not reading its answers (a client pipelining without reading costs one buffer each way).
    private var mayRead: Bool {
        !peerClosed && !closeWhenFlushed && decoder.bufferedByteCount < limits.inputHighWater && unsentCount < limits.outputHighWater
    }

    // MARK: Events

    /// The event queue reported this descriptor.
    mutating func readiness(readable: Bool, writable: Bool, hangUp: Bool, error: Bool, at now: UInt64) {
        self.now = now
        renewReads()
        if error { mustClose = true }
        if readable || hangUp { canRead = true }
        if writable { canWrite = true }
        // Hang-up: both directions are gone, so once any remaining input is handled there is nothing
        // left to write to; without this a level-triggered HUP would spin the loop.
        if hangUp { hangUpPending = true }
    }

    mutating func firstByte(_ byte: UInt8) {
        guard phase == .sniffing else { return }
        if byte == 0x16 {
            handshakePending = true
        } else {
            rejectPlainHTTPOnTLSPort()
        }
    }

    mutating func handshakeSlot(granted: Bool) {
        handshakePending = false
        guard granted else {
            // The handshake deadline still counts from accept: a slot is given only to a connection whose
            // ClientHello has arrived whole, so a line forms only when handshakes are slow to finish,
            // and a connection that waited past its deadline is closed like any other.
            isWaitingForHandshakeSlot = true
            return
        }
        isWaitingForHandshakeSlot = false
        holdsHandshakeSlot = true
    }

    /// The loop grants a slot this connection waited for: it sniffs again and claims it.
    mutating func handshakeSlotGranted(at now: UInt64) {
        self.now = now
        guard phase == .sniffing, isWaitingForHandshakeSlot else { return }
        canRead = true
        isWaitingForHandshakeSlot = false
    }

    mutating func tlsStarted() {
        phase = .handshaking
        canRead = true
    }

    mutating func handshakeProgressed(finished: Bool, at now: UInt64) {
        self.now = now
        guard finished else { return }
        holdsHandshakeSlot = false
        phase = .open
        timeouts.arm(.header, at: now)
        canRead = true
        slotToRelease = true
    }

    /// The handshake step needs the socket readable (or writable) again.
    mutating func handshakeBlocked(wantsWrite: Bool) {
        handshakeInterest = wantsWrite ? .writable : .readable
        if wantsWrite { canWrite = false } else { canRead = false }
    }

    /// Some bytes were read. `exhausted`: the read was short, the socket has nothing more now.
    /// `transportHoldsMore`: TLS holds input (records read ahead, decrypted bytes) the event queue will
    /// not announce.
    mutating func received(_ bytes: UnsafeRawBufferPointer, exhausted: Bool, transportHoldsMore: Bool, at now: UInt64) {
        self.now = now
        decoder.append(bytes)
        timeouts.inputArrived(at: now, insideRequest: decoder.isInsideRequest)
        transportHoldsInput = transportHoldsMore
        if exhausted { canRead = false }
    }

    mutating func readBlocked(wantsWrite: Bool) {
        canRead = false
        transportHoldsInput = false
        readWantsWrite = wantsWrite
        if wantsWrite { canWrite = false }
    }

    mutating func readEOF() {
        canRead = false
        transportHoldsInput = false
        peerClosed = true
        if phase != .open { mustClose = true }
    }

    mutating func wrote(_ count: Int, at now: UInt64) {
        self.now = now
        outputOffset += count
        retryWriteLength = 0
        writeWantsRead = false
        timeouts.wrote(at: now)
        if outputOffset == output.count { outputDrained() }
    }

    /// The send would block; a TLS send must be retried with the same length.
    mutating func writeBlocked(wantsRead: Bool, length: Int) {
        if isTLS { retryWriteLength = length }
        writeWantsRead = wantsRead
        if wantsRead { canRead = false } else { canWrite = false }
        // The peer must read within the writing timeout, even when not one byte went out.
        if timeouts.timer != .writing { timeouts.wrote(at: now) }
    }

    mutating func discarded(reachedEOF: Bool) {
        canRead = false
        if reachedEOF || closeAfterDiscarding { mustClose = true }
    }

    /// An I/O error, a refused TLS session, a failed handshake: the connection is over.
    mutating func failed() { mustClose = true }

    /// A worker answered the request in flight; `onLoop`: the loop answered it while handling this
    /// connection's readiness, so the wake-up's read budget is not renewed (a client pipelining such
    /// requests would otherwise keep the loop on its connection for ever).
    mutating func responseReady(_ response: HTTPResponse, at now: UInt64, onLoop: Bool = false) {
        self.now = now
        guard phase != .closed, let request = inFlight else { return }
        inFlight = nil
        let directives = response.directives
        if directives.dropConnection {
            pendingLog = AccessEntry(method: request.method, target: request.target, status: 0, nanoseconds: now - request.started, dropped: true)
            mustClose = true
            return
        }
        let keepAlive = request.wantsKeepAlive && !directives.closeAfterResponse && !isShuttingDown && !peerClosed
        if let delay = directives.delay, delay > .zero {
            delayed = DelayedResponse(response: response, due: request.started.saturatingAdding(delay.nanoseconds), request: request, keepAlive: keepAlive)
            return
        }
        send(response, for: request, keepAlive: keepAlive, renewsReads: !onLoop)
    }

    /// The deadline has passed (or may have: the loop scans coarsely).
    mutating func timerFired(at now: UInt64) {
        self.now = now
        guard phase != .closed else { return }
        if forceCloseAt != 0, forceCloseAt <= now {
            mustClose = true
            return
        }
        if let pending = delayed {
            guard pending.due <= now else { return }
            delayed = nil
            send(pending.response, for: pending.request, keepAlive: pending.keepAlive && !isShuttingDown)
            return
        }
        guard let expiry = timeouts.expiry(at: now, insideRequest: decoder.isInsideRequest) else { return }
        if expiry == .requestTimedOut, phase == .open {
            queue(HTTPDecodingError(.requestTimedOut, "the request did not arrive in time").response, isHead: false, keepAlive: false)
            pendingLog = Self.refusal(decoder.currentRequestLine, status: 408)
            // From now on the peer only has to read the answer.
            timeouts.wrote(at: now)
        } else {
            mustClose = true
        }
    }

    /// Graceful shutdown: idle connections go now, busy ones finish their current answer within
    /// `grace`. A lingering connection has nothing in flight: its last answer is written, so it does
    /// not hold the stop.
    mutating func shutdownRequested(at now: UInt64, grace: UInt64) {
        self.now = now
        guard !isShuttingDown else { return }
        isShuttingDown = true
        forceCloseAt = now.saturatingAdding(grace)
        switch phase {
        case .sniffing, .handshaking: mustClose = true
        case .lingering:
            closeAfterDiscarding = true
            canRead = true
        case .open:
            if !isAwaitingAnswer, unsentCount == 0, !decoder.isInsideRequest { mustClose = true }
        case .closed: break
        }
    }

    // MARK: Actions

    private var pendingLog: AccessEntry?
    private var pendingDispatch: HTTPRequest?
    private var pendingShutDownWrites = false

    /// What the shell must do next, or nil when the connection waits for its next event.
    mutating func nextAction() -> Action? {
        if phase == .closed { return nil }
        if let entry = pendingLog {
            pendingLog = nil
            return .log(entry)
        }
        if slotToRelease {
            slotToRelease = false
            return .releaseHandshakeSlot
        }
        if mustClose { return close() }
        if let request = pendingDispatch {
            pendingDispatch = nil
            return .dispatch(request)
        }
        if pendingShutDownWrites {
            pendingShutDownWrites = false
            return .shutDownWrites
        }
        switch phase {
        case .sniffing:
            if handshakePending { return .claimHandshakeSlot }
            if holdsHandshakeSlot { return .startTLS }
            if canRead, !isWaitingForHandshakeSlot {
                canRead = false
                return .peekClientHello
            }
        case .handshaking:
            if handshakeInterest == .readable ? canRead : canWrite {
                return .handshake
            }
        case .lingering:
            if canRead { return .discardInput }
        case .open:
            if let action = nextOpenAction() { return action }
        case .closed:
            return nil
        }
        if hangUpPending { return close() }
        return settle()
    }

    private mutating func nextOpenAction() -> Action? {
        if unsentCount > 0, writeWantsRead ? canRead : canWrite { return .write }
        if mayRead, readWantsWrite ? canWrite : canRead {
            if readsThisWakeUp < limits.readsPerWakeUp {
                readsThisWakeUp += 1
                return .read
            }
            // Spent: the loop's other connections go first. What the transport holds would never be
            // announced, so this connection asks for a turn of its own instead of reading on.
            if transportHoldsInput, !awaitsAnotherTurn {
                awaitsAnotherTurn = true
                return .requestAnotherTurn
            }
        }
        decode()
        if pendingDispatch != nil || pendingLog != nil || mustClose { return nextAction() }
        if unsentCount > 0, writeWantsRead ? canRead : canWrite { return .write }
        let idle = !isAwaitingAnswer && unsentCount == 0
        if idle, peerClosed || (isShuttingDown && !decoder.isInsideRequest) { return close() }
        return nil
    }

    /// Decodes buffered requests until one must wait (in flight, delayed, full output, closing).
    private mutating func decode() {
        while !isAwaitingAnswer, !closeWhenFlushed, pendingDispatch == nil, unsentCount < limits.outputHighWater {
            let event: HTTPDecoderEvent?
            do {
                event = try decoder.next()
            } catch {
                queue(error.response, isHead: false, keepAlive: false)
                pendingLog = Self.refusal(error.requestLine, status: error.status.code)
                return
            }
            guard let event else { return }
            switch event {
            case .continueExpected:
                output.append(contentsOf: HTTPResponseEncoder.continueResponse)
            case .request(let request):
                timeouts.requestDecoded()
                answeredRequests += 1
                inFlight = InFlight(isHead: request.isHead, wantsKeepAlive: request.wantsKeepAlive,
                                    method: request.method, target: request.target, started: now)
                timeouts.arm(.none, at: now)
                pendingDispatch = request
            }
        }
    }

    /// Nothing more to do now: the timer and the interest that fit the state.
    private mutating func settle() -> Action? {
        if phase == .open, !isAwaitingAnswer, unsentCount == 0 {
            // With nothing in flight and nothing to write, the deadline for what the peer must do next.
            timeouts.settle(at: now, readingBody: decoder.isReadingBody, insideRequest: decoder.isInsideRequest, answeredBefore: answeredRequests > 0)
        }
        let due = deadline
        if due != announcedDeadline {
            announcedDeadline = due
            return .armTimer(at: due)
        }
        let wanted = wantedInterest
        if wanted != registeredInterest {
            registeredInterest = wanted
            return .setInterest(wanted)
        }
        return nil
    }

    private var wantedInterest: Interest {
        switch phase {
        case .sniffing: return isWaitingForHandshakeSlot || holdsHandshakeSlot ? [] : .readable
        case .lingering: return .readable
        case .handshaking: return handshakeInterest
        case .open:
            var wanted: Interest = []
            if mayRead || writeWantsRead { wanted.insert(.readable) }
            if (unsentCount > 0 && !writeWantsRead) || readWantsWrite { wanted.insert(.writable) }
            return wanted
        case .closed: return []
        }
    }

    private mutating func close() -> Action {
        let releasing = holdsHandshakeSlot
        holdsHandshakeSlot = false
        phase = .closed
        return .close(releaseHandshakeSlot: releasing)
    }

    // MARK: Output

    /// The bytes the next `write` sends.
    func withUnsentBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let length = retryWriteLength > 0 ? retryWriteLength : min(unsentCount, limits.writeChunk)
        return output.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[outputOffset..<(outputOffset + length)])) }
    }

    /// A fresh read budget, and with it the right to ask for another turn when it is spent: a turn
    /// declined earlier (the socket had input then) must not keep a later one from being asked for.
    private mutating func renewReads() {
        readsThisWakeUp = 0
        awaitsAnotherTurn = false
    }

    private mutating func send(_ response: HTTPResponse, for request: InFlight, keepAlive: Bool, renewsReads: Bool = true) {
        queue(response, isHead: request.isHead, keepAlive: keepAlive)
        pendingLog = AccessEntry(method: request.method, target: request.target, status: response.status.code, nanoseconds: now - request.started)
        // Requests and input held back by backpressure can go on now.
        if renewsReads { renewReads() }
    }

    private mutating func queue(_ response: HTTPResponse, isHead: Bool, keepAlive: Bool) {
        HTTPResponseEncoder.encode(response, isHead: isHead, keepAlive: keepAlive, date: date, into: &output)
        if !keepAlive { closeWhenFlushed = true }
    }

    /// A client speaking plain HTTP to the TLS port gets a readable answer, not a hang.
    private mutating func rejectPlainHTTPOnTLSPort() {
        phase = .open
        let response = HTTPResponse(status: .badRequest, text: "This port speaks HTTPS: use https:// to talk to it.\n", contentType: "text/plain; charset=utf-8")
        queue(response, isHead: false, keepAlive: false)
        pendingLog = AccessEntry(method: "-", target: "(plain HTTP on the TLS port)", status: 400, nanoseconds: 0)
    }

    private mutating func outputDrained() {
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
        if closeWhenFlushed {
            beginLingeringClose()
        } else if timeouts.timer == .writing {
            timeouts.arm(.none, at: now)
        }
    }

    /// Our side is finished (FIN sent after the last answer). Input already received is read first:
    /// closing with unread input would send a reset that can destroy the answer before the peer reads it.
    private mutating func beginLingeringClose() {
        if peerClosed {
            mustClose = true
            return
        }
        pendingShutDownWrites = true
        phase = .lingering
        if isShuttingDown {
            closeAfterDiscarding = true
            canRead = true
        } else {
            timeouts.arm(.linger, at: now)
        }
    }

    /// A request refused before it was whole is named when its request line was read.
    private static func refusal(_ requestLine: HTTPRequestLine?, status: Int) -> AccessEntry {
        AccessEntry(method: requestLine?.method ?? "-", target: requestLine?.target ?? "-", status: status, nanoseconds: 0)
    }
}
