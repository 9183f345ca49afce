import EntraHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection: TLS sniffing and handshake, request decoding, in-order answers, write
/// buffering with backpressure, timeouts, and a lingering close. Owned by one event loop thread.
final class Connection {
    enum Phase {
        /// TLS listener, nothing read yet: the first byte tells TLS (0x16) from plain HTTP.
        case sniffing
        case handshaking
        case open
        /// Output finished and write side shut; input is discarded until EOF so the peer gets
        /// our last response instead of a reset.
        case lingering
        case closed
    }

    /// The request a worker is answering: one at a time per connection, so pipelined answers keep
    /// their order.
    struct InFlight {
        var isHead: Bool
        var wantsKeepAlive: Bool
        var method: String
        var target: String
        var started: UInt64
    }

    /// Encoded only when due, so that a shutdown begun meanwhile turns it into `Connection: close`.
    struct DelayedResponse {
        var response: HTTPResponse
        var due: UInt64
        var isHead: Bool
        var keepAlive: Bool
        var method: String
        var target: String
        var started: UInt64
    }

    let fd: Int32
    /// Tells this connection from a later one that reuses its descriptor.
    let serial: UInt64
    private let listener: ListenerInfo
    private let context: RequestContext
    private unowned let loop: EventLoop
    private var phase: Phase
    private var tls: TLSSession?
    private var decoder: HTTPRequestDecoder
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// A TLS write that returned WANT_* must be retried with the same length.
    private var pendingTLSWriteLength = 0
    private var closeWhenFlushed = false
    private var peerClosed = false
    private var delayed: DelayedResponse?
    private var inFlight: InFlight?
    private var handshakeInterest: Interest = .readable
    /// A TLS client waiting for one of the loop's handshake slots: its bytes stay in the kernel.
    private(set) var isWaitingForHandshakeSlot = false
    private var readWantsWrite = false
    private var writeWantsRead = false
    private var timeouts: ConnectionTimeouts
    private var answeredRequests = 0
    var deadline: UInt64 { timeouts.deadline }
    var registeredInterest: Interest = []

    /// Stop reading while this much input waits for an answer in progress (backpressure).
    private var inputHighWater: Int { decoder.limits.maxHeadBytes + 64 * 1024 }
    private static let outputHighWater = 64 * 1024

    init(fd: Int32, serial: UInt64, listener: ListenerInfo, remoteAddress: String, loop: EventLoop) {
        self.fd = fd
        self.serial = serial
        self.listener = listener
        self.loop = loop
        self.context = RequestContext(remoteAddress: remoteAddress, isSecure: listener.tls != nil, localPort: listener.port)
        self.decoder = HTTPRequestDecoder(limits: loop.server.configuration.limits)
        self.timeouts = ConnectionTimeouts(spans: loop.timeoutSpans, acceptedAt: loop.now, isTLS: listener.tls != nil)
        phase = listener.tls != nil ? .sniffing : .open
    }

    var isOpen: Bool { phase != .closed }
    var delayedDue: UInt64? { delayed?.due }

    // MARK: Events

    func handle(_ readiness: Readiness) {
        if readiness.error {
            close()
            return
        }
        let readable = readiness.readable || readiness.hangUp
        let writable = readiness.writable
        switch phase {
        case .sniffing: sniff()
        case .handshaking: continueHandshake()
        case .lingering: discardInput()
        case .open:
            var resumed = false
            if outputOffset < output.count, (writable && !writeWantsRead) || (readable && writeWantsRead) {
                flush()
                // Requests held back by a full output buffer can be answered now.
                if phase == .open, outputOffset == output.count, decoder.bufferedByteCount > 0 || tls != nil {
                    resumed = true
                    readAndAnswer()
                }
            }
            if !resumed, phase == .open, (readable && !writeWantsRead) || (writable && readWantsWrite) { readAndAnswer() }
        case .closed: return
        }
        // Hang-up: both directions are gone, so once any remaining input was handled above there is
        // nothing left to write to; without this a level-triggered HUP would spin the loop.
        if readiness.hangUp { return close() }
        updateInterest()
    }

    private func sniff() {
        var first: UInt8 = 0
        let received = recv(fd, &first, 1, Int32(MSG_PEEK))
        if received < 0, errno == EAGAIN || errno == EINTR { return }
        guard received == 1 else { return close() }
        guard first == 0x16 else { return rejectPlainHTTPOnTLSPort() }
        guard loop.claimHandshakeSlot(for: self) else {
            // Waiting in line is the server's doing: the handshake timeout starts with the handshake.
            // A waiting connection costs a descriptor and this object (bounded by maxConnections).
            isWaitingForHandshakeSlot = true
            arm(.none)
            return
        }
        isWaitingForHandshakeSlot = false
        guard let session = listener.tls?.makeSession(fd: fd) else {
            loop.releaseHandshakeSlot()
            return close()
        }
        tls = session
        phase = .handshaking
        continueHandshake()
    }

    /// A client speaking plain HTTP to the TLS port gets a readable answer, not a hang.
    private func rejectPlainHTTPOnTLSPort() {
        phase = .open
        let response = HTTPResponse(status: .badRequest, text: "This port speaks HTTPS: use https:// to talk to it.\n", contentType: "text/plain; charset=utf-8")
        HTTPResponseEncoder.encode(response, isHead: false, keepAlive: false, date: loop.currentDate, into: &output)
        loop.log(AccessLog.line(method: "-", target: "(plain HTTP on the TLS port)", status: 400, nanoseconds: 0))
        closeWhenFlushed = true
        flush()
    }

    private func continueHandshake() {
        guard let tls else { return close() }
        switch tls.handshake() {
        case .transferred:
            loop.releaseHandshakeSlot()
            phase = .open
            arm(.header)
            readAndAnswer()
        case .wantRead: handshakeInterest = .readable
        case .wantWrite: handshakeInterest = .writable
        case .closed: close()
        case .failed(let reason):
            loop.log("TLS handshake with \(context.remoteAddress) failed: \(reason)")
            close()
        }
    }

    // MARK: Reading and answering

    private func readAndAnswer() {
        repeat {
            readAvailableInput()
            answerBufferedRequests()
            // Decrypted bytes kept inside OpenSSL are invisible to epoll: drain them before waiting.
        } while phase == .open && tls?.hasBufferedInput == true && mayRead
    }

    /// Backpressure both ways: input is not read while enough of it waits to be answered, nor while
    /// the peer is not reading its answers (a client pipelining without reading costs one buffer each way).
    private var mayRead: Bool {
        !peerClosed && !closeWhenFlushed && decoder.bufferedByteCount < inputHighWater && output.count - outputOffset < Self.outputHighWater
    }

    private func readAvailableInput() {
        readWantsWrite = false
        var reads = 0
        readLoop: while mayRead, reads < 16 {
            reads += 1
            switch receive() {
            case .transferred(let count):
                decoder.append(UnsafeRawBufferPointer(rebasing: loop.scratch[0..<count]))
                noteInputProgress()
                // A short plain read drained the socket; TLS may still hold decrypted bytes.
                if tls == nil, count < loop.scratch.count { break readLoop }
            case .wantRead: break readLoop
            case .wantWrite:
                readWantsWrite = true
                break readLoop
            case .closed: peerClosed = true
            case .failed: return close()
            }
        }
    }

    private func receive() -> IOResult {
        if let tls { return tls.read(into: loop.scratch) }
        let count = recv(fd, loop.scratch.baseAddress, loop.scratch.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EINTR ? .wantRead : .failed("recv errno \(errno)")
    }

    /// The first byte of a request starts its header deadline. Body bytes restart the stall timer, but
    /// never past the deadline for the whole body, so a trickling client cannot hold a request forever.
    private func noteInputProgress() {
        timeouts.inputArrived(at: loop.now, insideRequest: decoder.isInsideRequest)
    }

    /// Decodes and answers buffered requests in order until one must wait (delay, full output).
    private func answerBufferedRequests() {
        while phase == .open, !isAwaitingAnswer, !closeWhenFlushed, output.count - outputOffset < Self.outputHighWater {
            let event: HTTPDecoderEvent?
            do {
                event = try decoder.next()
            } catch {
                queue(error.response, isHead: false, keepAlive: false)
                logRefusal(error.requestLine, status: error.status.code)
                break
            }
            guard let event else { break }
            switch event {
            case .continueExpected:
                output.append(contentsOf: HTTPResponseEncoder.continueResponse)
            case .request(let request):
                timeouts.requestDecoded()
                answer(request)
            }
        }
        guard phase == .open else { return }
        flush()
        guard phase == .open else { return }
        if peerClosed, !isAwaitingAnswer, outputOffset == output.count {
            return close()
        }
        settleTimer()
    }

    /// With nothing in flight and nothing to write, the deadline for what the peer must do next.
    private func settleTimer() {
        guard !isAwaitingAnswer, outputOffset == output.count else { return }
        timeouts.settle(at: loop.now, readingBody: decoder.isReadingBody, insideRequest: decoder.isInsideRequest, answeredBefore: answeredRequests > 0)
    }

    /// A request being answered by a worker, or an answer waiting for its delay.
    private var isAwaitingAnswer: Bool { inFlight != nil || delayed != nil }

    /// Hands the request to a worker; decoding stops until `responseReady` brings its answer.
    private func answer(_ request: HTTPRequest) {
        answeredRequests += 1
        inFlight = InFlight(isHead: request.isHead, wantsKeepAlive: request.wantsKeepAlive,
                            method: request.method, target: request.target, started: loop.now)
        arm(.none)
        loop.dispatch(request, context: context, for: self)
    }

    /// The loop calls this when a worker has answered this connection's request.
    func responseReady(_ response: HTTPResponse) {
        guard phase != .closed, let request = inFlight else { return }
        inFlight = nil
        let directives = response.directives
        if directives.dropConnection {
            loop.log(AccessLog.line(method: request.method, target: request.target, status: 0, nanoseconds: loop.now - request.started) + " dropped")
            return close()
        }
        let keepAlive = request.wantsKeepAlive && !directives.closeAfterResponse && !loop.isShuttingDown && !peerClosed
        if let delay = directives.delay, delay > .zero {
            let due = request.started.saturatingAdding(delay.nanoseconds)
            delayed = DelayedResponse(response: response, due: due, isHead: request.isHead, keepAlive: keepAlive,
                                      method: request.method, target: request.target, started: request.started)
            loop.scheduleDelay(until: due)
            return
        }
        queue(response, isHead: request.isHead, keepAlive: keepAlive)
        loop.log(AccessLog.line(method: request.method, target: request.target, status: response.status.code, nanoseconds: loop.now - request.started))
        resumeAfterAnswer()
    }

    private func queue(_ response: HTTPResponse, isHead: Bool, keepAlive: Bool) {
        HTTPResponseEncoder.encode(response, isHead: isHead, keepAlive: keepAlive, date: loop.currentDate, into: &output)
        if !keepAlive { closeWhenFlushed = true }
    }

    /// The loop calls this when a delayed response is due.
    func releaseDelayedResponse() {
        guard let pending = delayed else { return }
        delayed = nil
        queue(pending.response, isHead: pending.isHead, keepAlive: pending.keepAlive && !loop.isShuttingDown)
        loop.log(AccessLog.line(method: pending.method, target: pending.target, status: pending.response.status.code, nanoseconds: loop.now - pending.started))
        resumeAfterAnswer()
    }

    /// Writes the answer, goes on with pipelined requests, and, after a pause, drains the decrypted
    /// bytes TLS may hold, which epoll will never announce.
    private func resumeAfterAnswer() {
        answerBufferedRequests()
        if phase == .open, tls != nil, !isAwaitingAnswer, !closeWhenFlushed, !peerClosed { readAndAnswer() }
        updateInterest()
    }

    // MARK: Writing

    private func flush() {
        while outputOffset < output.count {
            let remaining = output.count - outputOffset
            let length = pendingTLSWriteLength > 0 ? pendingTLSWriteLength : min(remaining, 1 << 20)
            let result = output.withUnsafeBytes { bytes -> IOResult in
                let slice = UnsafeRawBufferPointer(rebasing: bytes[outputOffset..<(outputOffset + length)])
                return send(slice)
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
                pendingTLSWriteLength = 0
                writeWantsRead = false
                timeouts.wrote(at: loop.now)
            case .wantWrite:
                if tls != nil { pendingTLSWriteLength = length }
                return
            case .wantRead:
                pendingTLSWriteLength = length
                writeWantsRead = true
                return
            case .closed, .failed:
                return close()
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
        if closeWhenFlushed {
            beginLingeringClose()
        } else if timeouts.timer == .writing {
            arm(.none)
            settleTimer()
        }
    }

    private func send(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        if let tls { return tls.write(bytes) }
        let count = Socket.send(fd, bytes)
        if count >= 0 { return .transferred(count) }
        return errno == EAGAIN || errno == EINTR ? .wantWrite : .failed("send errno \(errno)")
    }

    // MARK: Closing and timeouts

    private func beginLingeringClose() {
        if peerClosed { return close() }
        tls?.sendCloseNotify()
        Socket.shutdown(fd, .writes)
        phase = .lingering
        if loop.isShuttingDown { return closeAfterDiscardingInput() }
        arm(.linger)
    }

    private func discardInput() {
        while true {
            let count = recv(fd, loop.scratch.baseAddress, loop.scratch.count, 0)
            if count > 0 { continue }
            if count < 0, errno == EAGAIN || errno == EINTR { return }
            return close()
        }
    }

    /// Our side is finished (FIN sent after the last answer). Input already received is read first:
    /// closing with unread input would send a reset that can destroy the answer before the peer reads it.
    private func closeAfterDiscardingInput() {
        discardInput()
        close()
    }

    func timedOut() {
        guard let expiry = timeouts.expiry(at: loop.now, insideRequest: decoder.isInsideRequest) else { return }
        if expiry == .requestTimedOut, phase == .open {
            let response = HTTPResponse(status: HTTPStatus(408), text: "408 Request Timeout: the request did not arrive in time\n", contentType: "text/plain; charset=utf-8")
            queue(response, isHead: false, keepAlive: false)
            logRefusal(decoder.currentRequestLine, status: 408)
            flush()
            updateInterest()
        } else {
            close()
        }
    }

    /// A request refused before it was whole is named when its request line was read.
    private func logRefusal(_ requestLine: HTTPRequestLine?, status: Int) {
        loop.log(AccessLog.line(method: requestLine?.method ?? "-", target: requestLine?.target ?? "-", status: status, nanoseconds: 0))
    }

    /// Graceful shutdown: idle connections go now, busy ones finish their current answer. A lingering
    /// connection has nothing in flight: its last answer is written, so it does not hold the stop.
    func shutdownRequested() {
        let idle = phase == .open && !isAwaitingAnswer && outputOffset == output.count && !decoder.isInsideRequest
        switch phase {
        case .sniffing, .handshaking: close()
        case .lingering: closeAfterDiscardingInput()
        case .open where idle: close()
        case .open, .closed: break
        }
    }

    /// The loop grants a handshake slot this connection waited for.
    func handshakeSlotGranted() {
        guard phase == .sniffing, isWaitingForHandshakeSlot else { return }
        arm(.handshake)
        sniff()
        updateInterest()
    }

    func close() {
        guard phase != .closed else { return }
        if phase == .handshaking { loop.releaseHandshakeSlot() }
        phase = .closed
        tls = nil
        loop.forget(self)
        Socket.close(fd)
    }

    private func arm(_ kind: ConnectionTimeouts.Timer) { timeouts.arm(kind, at: loop.now) }

    func updateInterest() {
        guard phase != .closed else { return }
        var wanted: Interest = []
        switch phase {
        case .sniffing: wanted = isWaitingForHandshakeSlot ? [] : .readable
        case .lingering: wanted = .readable
        case .handshaking: wanted = handshakeInterest
        case .open:
            if mayRead || writeWantsRead { wanted.insert(.readable) }
            if (outputOffset < output.count && !writeWantsRead) || readWantsWrite { wanted.insert(.writable) }
        case .closed: return
        }
        if wanted != registeredInterest {
            registeredInterest = wanted
            loop.modify(fd, interest: wanted)
        }
    }
}
