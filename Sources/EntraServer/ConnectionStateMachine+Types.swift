import EntraHTTP

/// The machine's vocabulary: its phases, the actions it asks of the shell, and its limits.
extension ConnectionStateMachine {
    enum Phase: Equatable {
        /// TLS listener, nothing read yet: the first byte tells TLS (0x16) from plain HTTP.
        case sniffing
        case handshaking
        /// Reading heads and bodies, a request with a worker, or answers being written.
        case open
        /// Output finished and write side shut; input is discarded until EOF so the peer gets our last
        /// response instead of a reset.
        case lingering
        case closed
    }

    enum Action: Equatable {
        /// Peek (without consuming) until the first byte is known, and for TLS until the first record (the
        /// ClientHello) is whole; report `firstByte` or an I/O outcome.
        case peekClientHello
        /// Ask the loop for one of its handshake slots and report `handshakeSlot(granted:)`.
        case claimHandshakeSlot
        /// Create the TLS session (report `tlsStarted` or `failed`).
        case startTLS
        /// Run the TLS handshake one step and report `handshakeProgressed`, `blocked…` or `failed`.
        case handshake
        /// Read once and report `received`, `readBlocked`, `readEOF` or `failed`.
        case read
        /// The wake-up's reads are spent while the transport holds input that no readiness report may
        /// announce: when the socket is empty, the loop reports this connection readable again after its
        /// other ready connections (with input in the socket, the queue's own report serves).
        case requestAnotherTurn
        /// Send `withUnsentBytes` and report `wrote`, `writeBlocked` or `failed`.
        case write
        /// Hand the request to a worker; its answer comes back as `responseReady`.
        case dispatch(HTTPRequest)
        case log(AccessEntry)
        /// Send TLS close_notify (when TLS) and shut the socket's write side.
        case shutDownWrites
        /// Read and drop input until the socket would block (report `discarded(reachedEOF:)`).
        case discardInput
        /// The connection is finished; `releaseHandshakeSlot` when it held one of the loop's slots.
        case close(releaseHandshakeSlot: Bool)
        /// The loop must hear about this descriptor for these readiness kinds.
        case setInterest(Interest)
        /// The earliest instant `timerFired` must be called; 0 disarms.
        case armTimer(at: UInt64)
        /// The handshake finished: the loop's slot is free for the next connection.
        case releaseHandshakeSlot
    }

    /// An access-log line's facts; the shell formats it only when a log is kept.
    struct AccessEntry: Equatable {
        var method: String
        var target: String
        var status: Int
        var nanoseconds: UInt64
        var dropped = false
    }

    /// The limits beyond the decoder's own.
    struct Limits: Equatable {
        /// Stop reading while this much input waits for an answer in progress (backpressure).
        var inputHighWater: Int
        /// Stop decoding and reading while this much output waits for the peer.
        var outputHighWater = 64 * 1024
        /// Reads per wake-up, so one busy connection does not starve the loop's others.
        var readsPerWakeUp = 16
        /// One send never exceeds this.
        var writeChunk = 1 << 20

        init(decoder: HTTPRequestDecoder.Limits) { inputHighWater = decoder.maxHeadBytes + 64 * 1024 }
    }
}
