import EntraHTTP
@testable import EntraServer
import Testing
import Foundation

/// A peer and a socket made of arrays, and a clock made of a number: the driver performs the
/// machine's actions the way `Connection` does, so every phase, limit and timeout is tested without
/// sockets or sleeps.
struct FakeConnection {
    static let second: UInt64 = 1_000_000_000
    static let spans = ConnectionTimeouts.Spans(handshake: 10 * second, header: 5 * second, body: 60 * second, idle: 30 * second, linger: 2 * second)

    var machine: ConnectionStateMachine
    var now: UInt64 = 0
    /// Bytes the peer sent that the connection has not read yet, and whether it has finished sending.
    var peerInput: [UInt8] = []
    var peerFinished = false
    /// Bytes the socket accepts before a send blocks.
    var sendRoom = Int.max
    var sent: [UInt8] = []
    var dispatched: [HTTPRequest] = []
    var logged: [ConnectionStateMachine.AccessEntry] = []
    var interest: Interest = .readable
    var timer: UInt64 = 0
    var writesShut = false
    var closed = false
    var releasedSlot = false
    var reads = 0
    /// Handshake steps still to come before the handshake completes; nil: it never completes.
    var handshakeSteps: Int? = 1
    var slotsFree = true
    let readSize = 1024
    /// Answers the loop gives itself (`HTTPResponder.answersOnLoop`); nil: every request goes to a worker.
    var answerOnLoop: ((HTTPRequest) -> HTTPResponse?)?
    /// Text the peer sends again whenever the connection has read what it had: a peer that never stops.
    var endlessInput: String?
    /// Set instead of failing when the machine takes 10,000 steps without settling.
    var recordsRunaway = false
    var ranAway = false
    /// What every read reports as held by the transport (TLS records read ahead).
    var transportHoldsMore = false
    var turnsRequested = 0

    init(tls: Bool = false, limits: HTTPRequestDecoder.Limits = .init(maxHeadBytes: 1024, maxBodyBytes: 4096)) {
        machine = ConnectionStateMachine(isTLS: tls, decoderLimits: limits, spans: Self.spans, acceptedAt: 0)
        timer = machine.deadline
    }

    var sentText: String { String(decoding: sent, as: UTF8.self) }
    var phase: ConnectionStateMachine.Phase { machine.phase }

    /// The peer sends text and the socket reports readable.
    mutating func peerSends(_ text: String, at instant: UInt64? = nil) {
        peerInput += Array(text.utf8)
        wake(readable: true, at: instant)
    }

    mutating func wake(readable: Bool = false, writable: Bool = false, hangUp: Bool = false, at instant: UInt64? = nil) {
        if let instant { now = instant }
        machine.readiness(readable: readable, writable: writable, hangUp: hangUp, error: false, at: now)
        run()
    }

    mutating func answer(_ response: HTTPResponse = HTTPResponse(status: .ok, text: "ok", contentType: "text/plain"), at instant: UInt64? = nil) {
        if let instant { now = instant }
        machine.responseReady(response, at: now)
        run()
    }

    mutating func advance(to instant: UInt64) {
        now = instant
        if timer != 0, timer <= now { machine.timerFired(at: now) }
        run()
    }

    mutating func shutdown(grace: UInt64) {
        machine.shutdownRequested(at: now, grace: grace)
        run()
    }

    mutating func run() {
        var steps = 0
        while let action = machine.nextAction() {
            steps += 1
            if recordsRunaway, steps >= 10_000 {
                ranAway = true
                return
            }
            precondition(steps < 10_000, "the machine never settles")
            perform(action)
        }
    }

    private mutating func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .peekClientHello:
            if let first = peerInput.first { machine.firstByte(first) } else if peerFinished { machine.failed() } else { machine.readBlocked(wantsWrite: false) }
        case .claimHandshakeSlot: machine.handshakeSlot(granted: slotsFree)
        case .startTLS: machine.tlsStarted()
        case .handshake:
            // The fake handshake consumes the ClientHello and needs `handshakeSteps` more reads.
            if !peerInput.isEmpty { peerInput.removeAll() }
            if let steps = handshakeSteps, steps <= 1 {
                machine.handshakeProgressed(finished: true, at: now)
            } else {
                handshakeSteps = handshakeSteps.map { $0 - 1 }
                machine.handshakeBlocked(wantsWrite: false)
            }
        case .requestAnotherTurn: turnsRequested += 1
        case .read:
            reads += 1
            if let endlessInput { while peerInput.count < readSize { peerInput += Array(endlessInput.utf8) } }
            if peerInput.isEmpty {
                if peerFinished { machine.readEOF() } else { machine.readBlocked(wantsWrite: false) }
            } else {
                let chunk = Array(peerInput.prefix(readSize))
                peerInput.removeFirst(chunk.count)
                chunk.withUnsafeBytes { machine.received($0, exhausted: chunk.count < readSize, transportHoldsMore: transportHoldsMore, at: now) }
            }
        case .write:
            let (count, length) = machine.withUnsentBytes { bytes in (min(bytes.count, sendRoom), bytes.count) }
            if count == 0 {
                machine.writeBlocked(wantsRead: false, length: length)
            } else {
                machine.withUnsentBytes { sent += $0.prefix(count) }
                if sendRoom != .max { sendRoom -= count }
                machine.wrote(count, at: now)
            }
        case .dispatch(let request):
            if let response = answerOnLoop?(request) {
                machine.responseReady(response, at: now, onLoop: true)
            } else {
                dispatched.append(request)
            }
        case .log(let entry): logged.append(entry)
        case .shutDownWrites: writesShut = true
        case .discardInput:
            peerInput.removeAll()
            machine.discarded(reachedEOF: peerFinished)
        case .close(let releasing):
            closed = true
            if releasing { releasedSlot = true }
        case .setInterest(let wanted): interest = wanted
        case .armTimer(let instant): timer = instant
        case .releaseHandshakeSlot: releasedSlot = true
        }
    }
}

@Suite struct ConnectionStateMachineTests {
    static let second = FakeConnection.second
    static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    // MARK: Requests and keep-alive

    @Test func aRequestIsDispatchedAnsweredAndTheConnectionKeptAliveUnderTheIdleTimeout() {
        var connection = FakeConnection()
        connection.peerSends(Self.get, at: Self.second)
        #expect(connection.dispatched.map(\.target) == ["/a"])
        #expect(connection.timer == 0)  // A worker has it: no deadline for the peer.
        connection.answer(at: 2 * Self.second)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 200"))
        #expect(!connection.sentText.contains("Connection: close"))
        #expect(connection.logged.map(\.status) == [200])
        #expect(connection.logged.first?.nanoseconds == Self.second)
        #expect(connection.timer == 32 * Self.second)
        connection.advance(to: 32 * Self.second - 1)
        #expect(!connection.closed)
        connection.advance(to: 32 * Self.second)
        #expect(connection.closed)
    }

    /// A peer that pipelines requests the loop answers itself, and never stops: one wake-up still reads
    /// at most `readsPerWakeUp` times, so the loop gets back to its other connections.
    @Test func answersOnTheLoopDoNotRenewAWakeUpsReads() {
        var connection = FakeConnection()
        connection.answerOnLoop = { _ in HTTPResponse(status: .ok, text: "ok", contentType: "text/plain") }
        connection.endlessInput = Self.get
        connection.recordsRunaway = true
        connection.peerSends(Self.get)
        // Values, not the connection, in the expectations: a failure would print megabytes of state.
        let (ranAway, reads, limit) = (connection.ranAway, connection.reads, connection.machine.limits.readsPerWakeUp)
        #expect(!ranAway)
        #expect(reads <= limit)
        let (dispatched, answers) = (connection.dispatched.count, connection.sentText.components(separatedBy: "HTTP/1.1 200").count - 1)
        #expect(dispatched == 0)
        #expect(answers > 100, "it answered what it read")
        connection.wake(readable: true)
        let readsAfter = connection.reads
        #expect(readsAfter > reads, "the next wake-up reads again")
    }

    /// The same peer over TLS, whose every read leaves records in OpenSSL's buffer: the wake-up's reads
    /// still stop at the limit, and the connection asks the loop for one more turn instead of reading on
    /// (the queue would never announce what OpenSSL holds).
    @Test func inputHeldByTheTransportGetsAnotherTurnNotUnboundedReads() {
        var connection = FakeConnection()
        connection.answerOnLoop = { _ in HTTPResponse(status: .ok, text: "ok", contentType: "text/plain") }
        connection.endlessInput = Self.get
        connection.transportHoldsMore = true
        connection.recordsRunaway = true
        connection.peerSends(Self.get)
        let (ranAway, reads, limit, turns) = (connection.ranAway, connection.reads, connection.machine.limits.readsPerWakeUp, connection.turnsRequested)
        #expect(!ranAway)
        #expect(reads == limit)
        #expect(turns == 1)
        // The turn is a readiness report: a fresh budget, and one more request for a turn at its end.
        connection.wake(readable: true)
        let (readsAfter, turnsAfter) = (connection.reads, connection.turnsRequested)
        #expect(readsAfter == 2 * limit)
        #expect(turnsAfter == 2)
        // Nothing held: the budget ends the wake-up and the queue's next report brings the rest.
        connection.transportHoldsMore = false
        connection.wake(readable: true)
        let (readsLast, turnsLast) = (connection.reads, connection.turnsRequested)
        #expect(readsLast == 3 * limit)
        #expect(turnsLast == 2)
    }

    /// A turn the shell declined (the socket had input then) must not keep the connection from asking
    /// again after a worker's answer renewed its reads: by then the socket may be empty.
    @Test func aBudgetRenewedByAWorkersAnswerMayAskForAnotherTurn() {
        var connection = FakeConnection()
        connection.endlessInput = Self.get
        connection.transportHoldsMore = true
        connection.peerSends(Self.get)
        let (dispatched, turns) = (connection.dispatched.count, connection.turnsRequested)
        #expect(dispatched == 1)
        #expect(turns == 1)
        connection.answer()
        let (dispatchedAfter, turnsAfter) = (connection.dispatched.count, connection.turnsRequested)
        #expect(dispatchedAfter == 2)
        #expect(turnsAfter == 2)
    }

    @Test func pipelinedRequestsAreAnsweredOneAtATimeInOrder() {
        var connection = FakeConnection()
        connection.peerSends(Self.get + Self.get.replacingOccurrences(of: "/a", with: "/b"))
        #expect(connection.dispatched.map(\.target) == ["/a"])
        connection.answer()
        #expect(connection.dispatched.map(\.target) == ["/a", "/b"])
        connection.answer()
        #expect(connection.sentText.components(separatedBy: "HTTP/1.1 200").count == 3)
    }

    @Test func aRequestAskingToCloseGetsItsAnswerThenALingeringCloseUntilThePeerFinishes() {
        var connection = FakeConnection()
        connection.peerSends("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        connection.answer(at: Self.second)
        #expect(connection.sentText.contains("Connection: close"))
        #expect(connection.writesShut)
        #expect(connection.phase == .lingering)
        #expect(connection.timer == 3 * Self.second)  // The linger timeout.
        connection.peerFinished = true
        connection.wake(readable: true)
        #expect(connection.closed)
    }

    @Test func aPeerThatNeverFinishesIsClosedAfterTheLingerTimeout() {
        var connection = FakeConnection()
        connection.peerSends("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        connection.answer(at: Self.second)
        connection.peerSends("more", at: 2 * Self.second)
        #expect(connection.peerInput.isEmpty && !connection.closed)
        connection.advance(to: 3 * Self.second)
        #expect(connection.closed)
    }

    @Test func aPeerThatHalfClosesAfterItsRequestStillGetsTheAnswer() {
        var connection = FakeConnection()
        connection.peerFinished = true
        connection.peerSends(Self.get)
        connection.wake(readable: true)  // The end of input, read while the request is with a worker.
        #expect(connection.dispatched.count == 1 && !connection.closed)
        connection.answer()
        #expect(connection.sentText.contains("Connection: close"))
        #expect(connection.closed)  // Nothing left to linger for: the peer has finished.
    }

    @Test func aHangUpClosesOnceTheInputIsHandled() {
        var connection = FakeConnection()
        connection.peerInput = Array(Self.get.utf8)
        connection.wake(readable: true, hangUp: true)
        #expect(connection.dispatched.count == 1)
        #expect(connection.closed)
    }

    @Test func aDelayedAnswerIsWrittenWhenDue() {
        var connection = FakeConnection()
        connection.peerSends(Self.get, at: Self.second)
        connection.answer(HTTPResponse(status: .ok, body: [], directives: .init(delay: .seconds(3))), at: Self.second)
        #expect(connection.sent.isEmpty)
        #expect(connection.timer == 4 * Self.second)
        connection.advance(to: 4 * Self.second)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 200"))
    }

    @Test func aDroppedConnectionClosesWithoutAnAnswer() {
        var connection = FakeConnection()
        connection.peerSends(Self.get)
        connection.answer(HTTPResponse(status: .ok, body: [], directives: .init(dropConnection: true)))
        #expect(connection.sent.isEmpty)
        #expect(connection.closed)
        #expect(connection.logged.first?.dropped == true)
    }

    @Test func anExpectContinueRequestGets100BeforeItsBody() {
        var connection = FakeConnection()
        connection.peerSends("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.sentText == "HTTP/1.1 100 Continue\r\n\r\n")
        connection.peerSends("hi")
        #expect(connection.dispatched.first?.body == Array("hi".utf8))
    }

    // MARK: Timeouts

    @Test func aSilentConnectionIsClosedAfterTheHeaderTimeoutWithoutAnAnswer() {
        var connection = FakeConnection()
        #expect(connection.timer == 5 * Self.second)
        connection.advance(to: 5 * Self.second)
        #expect(connection.closed)
        #expect(connection.sent.isEmpty)
    }

    @Test func aHeadThatDoesNotArriveInTimeGets408() {
        var connection = FakeConnection()
        connection.peerSends("GET /slow HTTP/1.1\r\nHo", at: Self.second)
        connection.advance(to: 5 * Self.second)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 408"))
        #expect(connection.logged.map(\.target) == ["/slow"])
        #expect(connection.phase == .lingering)
    }

    @Test func aStalledBodyGets408AfterTheStallLimit() {
        var connection = FakeConnection()
        connection.peerSends("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab", at: Self.second)
        #expect(connection.timer == 6 * Self.second)
        connection.peerSends("cd", at: 3 * Self.second)
        #expect(connection.timer == 8 * Self.second)
        connection.advance(to: 8 * Self.second)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 408"))
    }

    @Test func aTricklingBodyGets408AtTheWholeBodyDeadline() {
        var connection = FakeConnection()
        connection.peerSends("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n", at: Self.second)
        var instant = Self.second
        while instant + 4 * Self.second < 61 * Self.second {
            instant += 4 * Self.second
            connection.advance(to: instant)
            connection.peerSends("x", at: instant)
            #expect(connection.sent.isEmpty)
        }
        #expect(connection.timer == 61 * Self.second)
        connection.advance(to: 61 * Self.second)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 408"))
    }

    @Test func aPeerThatDoesNotReadItsAnswerIsClosedAfterTheWritingTimeout() {
        var connection = FakeConnection()
        connection.sendRoom = 10
        connection.peerSends(Self.get)
        connection.answer(at: Self.second)
        #expect(connection.sent.count == 10)
        #expect(connection.interest.contains(.writable))
        #expect(connection.timer == 31 * Self.second)
        connection.sendRoom = 5
        connection.wake(writable: true, at: 20 * Self.second)
        #expect(connection.timer == 50 * Self.second)  // Each write restarts it.
        connection.advance(to: 50 * Self.second)
        #expect(connection.closed)
    }

    @Test func aTLSHandshakeMustFinishInTimeAndGivesBackItsSlot() {
        var connection = FakeConnection(tls: true)
        connection.handshakeSteps = nil
        connection.peerInput = [0x16, 3, 1]
        connection.wake(readable: true, at: Self.second)
        #expect(connection.phase == .handshaking)
        #expect(connection.timer == 10 * Self.second)  // From accept.
        connection.advance(to: 10 * Self.second)
        #expect(connection.closed && connection.releasedSlot)
    }

    @Test func aFinishedHandshakeGivesBackItsSlotAndStartsTheHeaderTimeout() {
        var connection = FakeConnection(tls: true)
        connection.handshakeSteps = 2
        connection.peerInput = [0x16, 3, 1]
        connection.wake(readable: true, at: Self.second)
        #expect(!connection.releasedSlot)
        connection.wake(readable: true, at: 2 * Self.second)
        #expect(connection.releasedSlot && connection.phase == .open)
        #expect(connection.timer == 7 * Self.second)
    }

    /// The handshake deadline counts from accept, in line for a slot or not: a client that stalls cannot
    /// keep a place in the line past it.
    @Test func aConnectionWaitingForAHandshakeSlotKeepsItsDeadlineFromAccept() {
        var connection = FakeConnection(tls: true)
        let deadline = connection.timer
        #expect(deadline > 0)
        connection.slotsFree = false
        connection.peerInput = [0x16]
        connection.wake(readable: true, at: Self.second)
        #expect(connection.machine.isWaitingForHandshakeSlot)
        #expect(connection.timer == deadline && connection.interest == [])
        connection.slotsFree = true
        connection.now = 3 * Self.second
        connection.machine.handshakeSlotGranted(at: connection.now)
        connection.run()
        #expect(connection.phase == .open)
        #expect(connection.timer == 8 * Self.second)
    }

    @Test func plainHTTPOnTheTLSPortGetsAReadable400() {
        var connection = FakeConnection(tls: true)
        connection.peerSends(Self.get)
        #expect(connection.sentText.hasPrefix("HTTP/1.1 400"))
        #expect(connection.sentText.contains("use https://"))
        #expect(connection.phase == .lingering)
    }

    @Test func shutdownClosesAnIdleConnectionAtOnce() {
        var connection = FakeConnection()
        connection.peerSends(Self.get)
        connection.answer()
        connection.shutdown(grace: 5 * Self.second)
        #expect(connection.closed)
    }

    @Test func shutdownLetsABusyConnectionFinishItsAnswerWithConnectionClose() {
        var connection = FakeConnection()
        connection.peerSends(Self.get, at: Self.second)
        connection.shutdown(grace: 5 * Self.second)
        #expect(!connection.closed)
        connection.answer(at: 2 * Self.second)
        #expect(connection.sentText.contains("Connection: close"))
        #expect(connection.closed)  // Shutting down: no lingering.
    }

    @Test func shutdownGraceEndsABusyConnection() {
        var connection = FakeConnection()
        connection.peerSends(Self.get, at: Self.second)
        connection.shutdown(grace: 5 * Self.second)
        #expect(connection.timer == 6 * Self.second)
        connection.advance(to: 6 * Self.second - 1)
        #expect(!connection.closed)
        connection.advance(to: 6 * Self.second)
        #expect(connection.closed)
        connection.answer()
        #expect(connection.sent.isEmpty)
    }

    // MARK: Limits

    @Test func aHeadOverTheLimitGets431AndTheConnectionCloses() {
        var connection = FakeConnection()
        connection.peerSends("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\n\r\n")
        #expect(connection.sentText.hasPrefix("HTTP/1.1 431"))
        #expect(connection.dispatched.isEmpty)
        #expect(connection.phase == .lingering)
    }

    @Test func aBodyOverTheLimitGets413() {
        var connection = FakeConnection()
        connection.peerSends("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
        #expect(connection.sentText.hasPrefix("HTTP/1.1 413"))
        #expect(connection.logged.map(\.status) == [413])
    }

    @Test func inputStopsBeingReadWhileEnoughWaitsForTheAnswerInProgress() {
        var connection = FakeConnection()
        let pipelined = String(repeating: Self.get, count: 4000)  // Far beyond the input high-water mark.
        connection.peerSends(pipelined)
        for _ in 0..<10 { connection.wake(readable: true) }
        #expect(connection.dispatched.count == 1)
        #expect(connection.machine.decoder.bufferedByteCount >= connection.machine.limits.inputHighWater)
        #expect(!connection.interest.contains(.readable))
        #expect(!connection.peerInput.isEmpty)
        connection.answer()
        #expect(connection.dispatched.count == 2)
    }

    @Test func readsPerWakeUpAreBoundedSoOneConnectionCannotStarveTheLoop() {
        var connection = FakeConnection(limits: .init(maxHeadBytes: 64 * 1024, maxBodyBytes: 1 << 20))
        connection.peerSends("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "b", count: 60_000))
        #expect(connection.reads == connection.machine.limits.readsPerWakeUp)
        connection.wake(readable: true)
        #expect(connection.reads == 2 * connection.machine.limits.readsPerWakeUp)
    }

    @Test func outputStopsDecodingWhileThePeerIsNotReading() {
        var connection = FakeConnection()
        connection.sendRoom = 0
        connection.peerSends(Self.get + Self.get)
        let big = HTTPResponse(status: .ok, body: Array(repeating: 65, count: 70 * 1024))
        connection.answer(big)
        #expect(connection.dispatched.count == 1)  // The second waits for the peer to read the first.
        #expect(connection.interest == .writable)
        connection.sendRoom = .max
        connection.wake(writable: true)
        #expect(connection.dispatched.count == 2)
    }
}
