package import EntraHTTP
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// One listening endpoint. `port: 0` lets the system choose; read it from `HTTPServer.start()`.
package struct ListenerConfiguration: Sendable, Equatable {
    package var host: String
    package var port: Int
    /// nil: plain HTTP.
    package var tls: TLSConfiguration?

    package init(host: String = "127.0.0.1", port: Int, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}

/// Where access log lines go: one line per request, `METHOD /path?name=… STATUS 12.3ms`.
package enum AccessLogDestination: Sendable {
    case standardError
    case disabled
    case custom(@Sendable (String) -> Void)
}

package struct ServerConfiguration: Sendable {
    package var listeners: [ListenerConfiguration]
    package var limits: HTTPRequestDecoder.Limits
    /// From accept (or the first byte of a later request) until the whole head has arrived → 408.
    package var headerTimeout: Duration
    /// From the end of a request's head until its whole body has arrived → 408. One deadline for the
    /// whole body, so a client trickling a byte at a time cannot hold the connection. (A body that stops
    /// arriving altogether times out sooner: `headerTimeout` after its last byte.)
    package var bodyTimeout: Duration
    /// A keep-alive connection with nothing in flight is closed after this.
    package var idleTimeout: Duration
    /// From accept until the TLS handshake completes.
    package var handshakeTimeout: Duration
    package var maxConnections: Int
    /// Event loop threads; defaults to the number of online processors.
    package var eventLoopCount: Int
    /// The kernel readiness API the loops use (epoll on Linux, kqueue on Darwin, or poll(2) on both).
    package var eventBackend: EventBackend
    /// TLS handshakes in progress at once (shared among the loops). Each holds OpenSSL's buffers
    /// (~60 KB when a client stalls mid-record); connections beyond wait, unread, for a slot.
    package var maxPendingHandshakes: Int
    /// Threads that run the responder (handlers never run on an event loop); defaults to the number
    /// of online processors.
    package var workerCount: Int
    /// How long graceful shutdown lets in-flight requests finish before closing everything.
    package var shutdownGracePeriod: Duration
    /// After the last answer on a closing connection, how long the peer's remaining input is drained
    /// (so it reads that answer instead of a reset) before the descriptor is closed anyway.
    package var lingerTimeout: Duration
    package var accessLog: AccessLogDestination
    /// Tests only: wraps each loop's readiness queue, to report what the kernel cannot be made to report
    /// on demand (a stale event for a descriptor number reused within one batch).
    var wrapEventQueue: (@Sendable (any EventQueue) -> any EventQueue)?

    package init(
        listeners: [ListenerConfiguration],
        limits: HTTPRequestDecoder.Limits = .init(),
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(60),
        idleTimeout: Duration = .seconds(60),
        handshakeTimeout: Duration = .seconds(10),
        maxConnections: Int = 10_000,
        eventLoopCount: Int = ServerConfiguration.onlineProcessorCount,
        workerCount: Int = ServerConfiguration.onlineProcessorCount,
        maxPendingHandshakes: Int = 256,
        shutdownGracePeriod: Duration = .milliseconds(1800),
        lingerTimeout: Duration = .seconds(2),
        accessLog: AccessLogDestination = .standardError,
        eventBackend: EventBackend = .native
    ) {
        self.listeners = listeners
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.handshakeTimeout = handshakeTimeout
        self.maxConnections = maxConnections
        self.eventLoopCount = eventLoopCount
        self.workerCount = workerCount
        self.maxPendingHandshakes = maxPendingHandshakes
        self.eventBackend = eventBackend
        self.shutdownGracePeriod = shutdownGracePeriod
        self.lingerTimeout = lingerTimeout
        self.accessLog = accessLog
    }

    /// The usual shape: HTTPS on `tlsPort`, and plain HTTP on `plainPort` when given.
    package init(host: String = "127.0.0.1", tlsPort: Int, tls: TLSConfiguration, plainPort: Int? = nil) {
        var listeners = [ListenerConfiguration(host: host, port: tlsPort, tls: tls)]
        if let plainPort { listeners.append(ListenerConfiguration(host: host, port: plainPort)) }
        self.init(listeners: listeners)
    }

    package static var onlineProcessorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The longest timeout the server takes (about 11.5 days). Deadlines are instants of the monotonic
    /// clock in 64-bit nanoseconds; a bound far below their range keeps every sum exact.
    package static let longestTimeoutSeconds: Double = 1_000_000
    /// Timers fire with millisecond precision; anything shorter would be zero.
    package static let shortestTimeoutSeconds: Double = 0.001

    /// Why `seconds` cannot be a timeout, or nil when it can. The one rule for the command line and the
    /// library: finite, positive, within `shortestTimeoutSeconds...longestTimeoutSeconds`.
    package static func timeoutProblem(seconds: Double) -> String? {
        guard !seconds.isNaN else { return "is not a number" }
        guard seconds > 0 else { return "must be positive (timeouts must be positive)" }
        guard seconds.isFinite, seconds <= longestTimeoutSeconds else {
            return "must be at most \(Int(longestTimeoutSeconds)) seconds"
        }
        guard seconds >= shortestTimeoutSeconds else { return "must be at least \(shortestTimeoutSeconds) seconds" }
        return nil
    }

    /// Every duration checked before anything listens, so no timer can overflow later.
    func validate() throws(ServerConfigurationError) {
        let durations: [(String, Duration)] = [
            ("headerTimeout", headerTimeout), ("bodyTimeout", bodyTimeout), ("idleTimeout", idleTimeout),
            ("handshakeTimeout", handshakeTimeout), ("shutdownGracePeriod", shutdownGracePeriod), ("lingerTimeout", lingerTimeout),
        ]
        for (name, duration) in durations {
            let (seconds, attoseconds) = duration.components
            let value = Double(seconds) + Double(attoseconds) / 1e18
            if let problem = Self.timeoutProblem(seconds: value) {
                throw ServerConfigurationError(description: "\(name) \(duration) \(problem)")
            }
        }
        guard maxConnections > 0 else { throw ServerConfigurationError(description: "maxConnections must be positive") }
        guard eventBackend.isAvailable else { throw ServerConfigurationError(description: "the \(eventBackend.rawValue) event backend is not available on this system") }
    }
}

/// A configuration the server refuses to start with (a timeout out of range, …).
package struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
}

/// An endpoint the server is listening on, once `start()` returned.
package struct BoundAddress: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var isTLS: Bool

    package var description: String {
        let scheme = isTLS ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }
}
