import EntraHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection: the shell around a `ConnectionStateMachine`. It turns the loop's reports
/// into events, and performs the machine's actions with the socket, the TLS session and the loop.
/// Every decision (phases, keep-alive, backpressure, timeouts) is the machine's. Owned by one loop thread.
final class Connection {
    let fd: Int32
    /// Tells this connection from a later one that reuses its descriptor.
    let serial: UInt64
    private let listener: ListenerInfo
    private let context: ConnectionFacts
    private unowned let loop: EventLoop
    private var machine: ConnectionStateMachine
    private var tls: TLSSession?
    /// On its loop's list of turns (the loop sets and clears it): a connection is there at most once.
    var hasTurnPending = false

    init(fd: Int32, serial: UInt64, listener: ListenerInfo, remoteAddress: String, loop: EventLoop) {
        self.fd = fd
        self.serial = serial
        self.listener = listener
        self.loop = loop
        self.context = ConnectionFacts(remoteAddress: remoteAddress, isSecure: listener.tls != nil, localPort: listener.port)
        machine = ConnectionStateMachine(isTLS: listener.tls != nil, decoderLimits: loop.server.configuration.limits,
                                         spans: loop.timeoutSpans, acceptedAt: loop.now)
    }

    var isOpen: Bool { machine.isOpen }
    var deadline: UInt64 { machine.deadline }
    var isWaitingForHandshakeSlot: Bool { machine.isWaitingForHandshakeSlot }
    var holdsHandshakeSlot: Bool { machine.holdsHandshakeSlot }

    // MARK: Events from the loop

    func handle(_ readiness: Readiness) {
        machine.readiness(readable: readiness.readable, writable: readiness.writable, hangUp: readiness.hangUp, error: readiness.error, at: loop.now)
        run()
    }

    /// The loop calls this when a worker has answered this connection's request.
    func responseReady(_ response: HTTPResponse) {
        deliver(response, onLoop: false)
        run()
    }

    private func deliver(_ response: HTTPResponse, onLoop: Bool) {
        machine.date = loop.currentDate
        machine.responseReady(response, at: loop.now, onLoop: onLoop)
    }

    /// The loop calls this when the connection's deadline has passed.
    func timerFired() {
        machine.date = loop.currentDate
        machine.timerFired(at: loop.now)
        run()
    }

    func shutdownRequested() {
        machine.shutdownRequested(at: loop.now, grace: loop.server.configuration.shutdownGracePeriod.nanoseconds)
        run()
    }

    /// The loop grants a handshake slot this connection waited for.
    func handshakeSlotGranted() {
        machine.handshakeSlotGranted(at: loop.now)
        run()
    }

    /// The loop is stopping: whatever state the connection is in, its descriptor goes now.
    func close() {
        guard machine.isOpen else { return }
        machine.failed()
        run()
    }

    // MARK: Actions

    private func run() {
        while let action = machine.nextAction() { perform(action) }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .peekClientHello:
            switch peekClientHello() {
            case .arrived(let first):
                if waitsForBytes > 0 { setReadLowWatermark(1) }
                machine.date = loop.currentDate
                machine.firstByte(first)
            case .partial(let needed):
                // Not polled again before `needed` bytes are there (or the peer closes): a client that
                // sends a few bytes and stops costs neither a slot nor a busy loop until its deadline.
                setReadLowWatermark(needed)
                machine.readBlocked(wantsWrite: false)
            case .wouldBlock:
                machine.readBlocked(wantsWrite: false)
            case .closed:
                machine.failed()
            }
        case .claimHandshakeSlot:
            machine.handshakeSlot(granted: loop.claimHandshakeSlot(for: self))
        case .startTLS:
            if let session = listener.tls?.makeSession(fd: fd) {
                tls = session
                machine.tlsStarted()
            } else {
                machine.failed()
            }
        case .handshake:
            guard let tls else { return machine.failed() }
            switch tls.handshake() {
            case .transferred: machine.handshakeProgressed(finished: true, at: loop.now)
            case .wantRead: machine.handshakeBlocked(wantsWrite: false)
            case .wantWrite: machine.handshakeBlocked(wantsWrite: true)
            case .closed: machine.failed()
            case .failed(let reason):
                loop.log("TLS handshake with \(context.remoteAddress) failed: \(reason)")
                machine.failed()
            }
        case .read: read()
        case .requestAnotherTurn:
            // With input in the socket, the level-triggered queue reports this connection at its next
            // wait; a turn as well would serve it twice per round while it floods the loop.
            if !Socket.hasInput(fd) { loop.giveAnotherTurn(to: self) }
        case .write: write()
        case .dispatch(let request):
            if let response = loop.serve(request, context: context, for: self) {
                // Fed straight back: `run()` goes on with what the answer makes the machine do next.
                deliver(response, onLoop: true)
            }
        case .log(let entry):
            loop.log(AccessLog.line(method: entry.method, target: entry.target, status: entry.status, nanoseconds: entry.nanoseconds) + (entry.dropped ? " dropped" : ""))
        case .shutDownWrites:
            tls?.sendCloseNotify()
            Socket.shutdown(fd, .writes)
        case .discardInput:
            machine.discarded(reachedEOF: discardInput())
        case .close(let releaseHandshakeSlot):
            if releaseHandshakeSlot { loop.releaseHandshakeSlot() }
            tls = nil
            loop.forget(self)
            Socket.close(fd)
        case .setInterest(let interest):
            loop.modify(fd, interest: interest)
        case .armTimer(let instant):
            loop.scheduleTimer(at: instant)
        case .releaseHandshakeSlot:
            loop.releaseHandshakeSlot()
        }
    }

    private enum ClientHelloPeek { case arrived(first: UInt8), partial(needed: Int), wouldBlock, closed }

    /// The first byte, and for a TLS record (0x16) the whole first record, in the socket's buffer: one
    /// peek of as much as the largest record TLS allows (it copies only what has arrived).
    private func peekClientHello() -> ClientHelloPeek {
        let buffer = loop.scratch
        let largestRecord = min(buffer.count, 5 + 16_384 + 2_048)
        let peeked = recv(fd, buffer.baseAddress, largestRecord, Int32(MSG_PEEK))
        if peeked < 0 { return errno == EAGAIN || errno == EINTR ? .wouldBlock : .closed }
        if peeked == 0 { return .closed }
        let first = buffer[0]
        guard first == 0x16 else { return .arrived(first: first) }
        guard peeked >= 5 else { return .partial(needed: 5) }
        let needed = 5 + (Int(buffer[3]) << 8 | Int(buffer[4]))
        // A record longer than TLS allows is OpenSSL's to refuse, with its own alert.
        guard needed <= largestRecord else { return .arrived(first: first) }
        return peeked >= needed ? .arrived(first: first) : .partial(needed: needed)
    }

    /// Bytes the kernel waits for before it reports the socket readable (SO_RCVLOWAT; 1 is the default).
    private var waitsForBytes = 0

    private func setReadLowWatermark(_ bytes: Int) {
        var value = Int32(bytes)
        if setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 {
            waitsForBytes = bytes > 1 ? bytes : 0
        }
    }

    private func read() {
        let result: IOResult
        if let tls {
            result = tls.read(into: loop.scratch)
        } else {
            let count = recv(fd, loop.scratch.baseAddress, loop.scratch.count, 0)
            result = count > 0 ? .transferred(count) : count == 0 ? .closed
                : errno == EAGAIN || errno == EINTR ? .wantRead : .failed("recv errno \(errno)")
        }
        switch result {
        case .transferred(let count):
            machine.date = loop.currentDate
            // A short read drained the socket (OpenSSL reads ahead into all its buffer's room). TLS may
            // still hold records or decrypted bytes that no readiness report announces: the machine then
            // reads on, or asks for another turn once its budget is spent.
            let holdsMore = tls?.hasBufferedInput ?? false
            let drained = tls.map { $0.lastReadDrainedSocket && !holdsMore } ?? (count < loop.scratch.count)
            machine.received(UnsafeRawBufferPointer(rebasing: loop.scratch[0..<count]),
                             exhausted: drained, transportHoldsMore: holdsMore, at: loop.now)
        case .wantRead: machine.readBlocked(wantsWrite: false)
        case .wantWrite: machine.readBlocked(wantsWrite: true)
        case .closed: machine.readEOF()
        case .failed: machine.failed()
        }
    }

    private func write() {
        let (result, length) = machine.withUnsentBytes { bytes -> (IOResult, Int) in
            if let tls { return (tls.write(bytes), bytes.count) }
            let count = Socket.send(fd, bytes)
            if count >= 0 { return (.transferred(count), bytes.count) }
            return (errno == EAGAIN || errno == EINTR ? .wantWrite : .failed("send errno \(errno)"), bytes.count)
        }
        switch result {
        case .transferred(let count): machine.wrote(count, at: loop.now)
        case .wantWrite: machine.writeBlocked(wantsRead: false, length: length)
        case .wantRead: machine.writeBlocked(wantsRead: true, length: length)
        case .closed, .failed: machine.failed()
        }
    }

    /// Reads and drops input until the socket would block; true when the peer has finished (or failed).
    private func discardInput() -> Bool {
        while true {
            let count = recv(fd, loop.scratch.baseAddress, loop.scratch.count, 0)
            if count > 0 { continue }
            return !(count < 0 && (errno == EAGAIN || errno == EINTR))
        }
    }
}
