@testable import EntraServer
import Testing

/// Every timeout of a connection, driven by a fake clock: instants are plain nanosecond counts.
@Suite struct ConnectionTimeoutsTests {
    static let second: UInt64 = 1_000_000_000
    let spans = ConnectionTimeouts.Spans(handshake: 10 * second, header: 5 * second, body: 60 * second, idle: 30 * second, linger: 2 * second)

    @Test func aTLSConnectionMustFinishItsHandshakeInTime() {
        let timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 100, isTLS: true)
        #expect(timeouts.timer == .handshake)
        #expect(timeouts.expiry(at: 100 + 10 * Self.second - 1, insideRequest: false) == nil)
        #expect(timeouts.expiry(at: 100 + 10 * Self.second, insideRequest: false) == .close)
    }

    @Test func aSilentPlainConnectionIsClosedAfterTheHeaderTimeout() {
        let timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        #expect(timeouts.timer == .header)
        #expect(timeouts.expiry(at: 5 * Self.second, insideRequest: false) == .close)
    }

    @Test func aHeadThatDoesNotArriveInTimeGets408() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.inputArrived(at: Self.second, insideRequest: true)
        // Header bytes do not extend the head's deadline, counted from accept.
        #expect(timeouts.deadline == 5 * Self.second)
        #expect(timeouts.expiry(at: 5 * Self.second, insideRequest: true) == .requestTimedOut)
    }

    @Test func aTricklingBodyIsBoundedByTheWholeBodyDeadline() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.settle(at: Self.second, readingBody: true, insideRequest: true, answeredBefore: false)
        #expect(timeouts.timer == .body)
        #expect(timeouts.deadline == 6 * Self.second)  // Stall limit: a header timeout after the last byte.
        // A byte every 4 s keeps the stall timer alive…
        var now = Self.second
        while now < 57 * Self.second {
            now += 4 * Self.second
            timeouts.inputArrived(at: now, insideRequest: true)
            #expect(timeouts.expiry(at: now, insideRequest: true) == nil)
        }
        // …but never past 60 s after the head.
        #expect(timeouts.deadline == 61 * Self.second)
        #expect(timeouts.expiry(at: 61 * Self.second, insideRequest: true) == .requestTimedOut)
    }

    @Test func aBodyThatStopsArrivingTimesOutAfterTheStallLimit() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.settle(at: Self.second, readingBody: true, insideRequest: true, answeredBefore: false)
        timeouts.inputArrived(at: 2 * Self.second, insideRequest: true)
        #expect(timeouts.expiry(at: 7 * Self.second - 1, insideRequest: true) == nil)
        #expect(timeouts.expiry(at: 7 * Self.second, insideRequest: true) == .requestTimedOut)
    }

    @Test func anIdleKeepAliveConnectionClosesAfterTheIdleTimeoutAndANewRequestRearmsTheHeaderTimer() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.requestDecoded()
        #expect(timeouts.timer == .none)
        timeouts.settle(at: 2 * Self.second, readingBody: false, insideRequest: false, answeredBefore: true)
        #expect(timeouts.timer == .idle)
        #expect(timeouts.expiry(at: 32 * Self.second, insideRequest: false) == .close)
        timeouts.inputArrived(at: 10 * Self.second, insideRequest: true)
        #expect(timeouts.timer == .header)
        #expect(timeouts.deadline == 15 * Self.second)
    }

    @Test func aPeerThatStopsReadingIsClosedAfterTheIdleTimeoutAndEachWriteRestartsIt() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.wrote(at: Self.second)
        #expect(timeouts.timer == .writing)
        timeouts.wrote(at: 20 * Self.second)
        #expect(timeouts.expiry(at: 49 * Self.second, insideRequest: false) == nil)
        #expect(timeouts.expiry(at: 50 * Self.second, insideRequest: false) == .close)
    }

    @Test func aLingeringCloseEndsAfterTheLingerTimeout() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.arm(.linger, at: 3 * Self.second)
        #expect(timeouts.expiry(at: 5 * Self.second, insideRequest: false) == .close)
    }

    @Test func aRequestWithAWorkerHasNoDeadline() {
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: 0, isTLS: false)
        timeouts.requestDecoded()
        #expect(timeouts.deadline == 0)
        #expect(timeouts.expiry(at: .max, insideRequest: false) == nil)
    }

    @Test func theLongestTimeoutsNeverWrapAround() {
        let longest = UInt64(1_000_000) * Self.second
        let spans = ConnectionTimeouts.Spans(handshake: longest, header: longest, body: longest, idle: longest, linger: longest)
        var timeouts = ConnectionTimeouts(spans: spans, acceptedAt: .max - 5, isTLS: false)
        #expect(timeouts.deadline == .max)
        timeouts.settle(at: .max - 1, readingBody: true, insideRequest: true, answeredBefore: false)
        #expect(timeouts.deadline == .max)
    }
}
