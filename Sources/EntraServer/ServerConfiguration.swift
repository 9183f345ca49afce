import EntraHTTP
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// One listening endpoint. `port: 0` lets the system choose; read it from `HTTPServer.start()`.
public struct ListenerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// nil: plain HTTP.
    public var tls: TLSConfiguration?

    public init(host: String = "127.0.0.1", port: Int, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}

/// Where access log lines go: one line per request, `METHOD /path?name=… STATUS 12.3ms`.
public enum AccessLogDestination: Sendable {
    case standardError
    case disabled
    case custom(@Sendable (String) -> Void)
}

public struct ServerConfiguration: Sendable {
    public var listeners: [ListenerConfiguration]
    public var limits: HTTPRequestDecoder.Limits
    /// From accept (or the first byte of a later request) until the whole head has arrived → 408.
    public var headerTimeout: Duration
    /// A keep-alive connection with nothing in flight is closed after this.
    public var idleTimeout: Duration
    /// From accept until the TLS handshake completes.
    public var handshakeTimeout: Duration
    public var maxConnections: Int
    /// Event loop threads; defaults to the number of online processors.
    public var eventLoopCount: Int
    /// How long graceful shutdown lets in-flight requests finish before closing everything.
    public var shutdownGracePeriod: Duration
    public var accessLog: AccessLogDestination

    public init(
        listeners: [ListenerConfiguration],
        limits: HTTPRequestDecoder.Limits = .init(),
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        handshakeTimeout: Duration = .seconds(10),
        maxConnections: Int = 10_000,
        eventLoopCount: Int = ServerConfiguration.onlineProcessorCount,
        shutdownGracePeriod: Duration = .milliseconds(1800),
        accessLog: AccessLogDestination = .standardError
    ) {
        self.listeners = listeners
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.handshakeTimeout = handshakeTimeout
        self.maxConnections = maxConnections
        self.eventLoopCount = eventLoopCount
        self.shutdownGracePeriod = shutdownGracePeriod
        self.accessLog = accessLog
    }

    /// The usual shape: HTTPS on `tlsPort`, and plain HTTP on `plainPort` when given.
    public init(host: String = "127.0.0.1", tlsPort: Int, tls: TLSConfiguration, plainPort: Int? = nil) {
        var listeners = [ListenerConfiguration(host: host, port: tlsPort, tls: tls)]
        if let plainPort { listeners.append(ListenerConfiguration(host: host, port: plainPort)) }
        self.init(listeners: listeners)
    }

    public static var onlineProcessorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// An endpoint the server is listening on, once `start()` returned.
public struct BoundAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var isTLS: Bool

    public var description: String {
        let scheme = isTLS ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }
}
