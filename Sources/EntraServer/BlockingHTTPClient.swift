private import COpenSSL
private import COpenSSLShims
package import EntraHTTP
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// A failed client exchange, with the reason captured where it failed (errno text, OpenSSL's queue,
/// the certificate verification result).
package struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String
    /// The exchange's `deadline` passed.
    package var isTimeout = false
    /// The answer outgrew `largestResponse`.
    package var isTooLarge = false

    init(_ description: String, isTimeout: Bool = false, isTooLarge: Bool = false) {
        self.description = description
        self.isTimeout = isTimeout
        self.isTooLarge = isTooLarge
    }
}

/// The trust of a TLS client: one CA file, peer and host-name verification always on.
package final class TLSClientTrust: @unchecked Sendable {
    // Immutable after init; OpenSSL allows SSL_new from several threads on a configured context.
    fileprivate let context: OpaquePointer

    package init(caFile: String) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSError("SSL_CTX_new") }
        guard TLSShims_configureClientContext(context, caFile) == 1 else {
            let error = TLSError("loading the CA file \(caFile)")
            SSL_CTX_free(context)
            throw error
        }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}

/// A small blocking HTTP/1.1 client on `HTTPClientCodec`: one connection per exchange (`Connection:
/// close`), plain TCP or TLS, a timeout on every read and write. For command-line tools (`fakeentra
/// browse`), never the server's event loops.
package struct BlockingHTTPClient: Sendable {
    package var trust: TLSClientTrust?
    package var timeoutSeconds: Int
    /// An HTTP proxy that https exchanges to hosts other than loopback tunnel through with CONNECT
    /// (`HTTPS_PROXY`, as `ConnectRelay` serves it for the service's own host names).
    package var httpsProxy: HTTPSProxy?

    /// The whole exchange's bound, when set, instead of `timeoutSeconds` per read and write: each step
    /// (every address's connect, the proxy's tunnel, the TLS handshake, the request's write, each read)
    /// waits only for what is left of it, and `ExchangeWatchdog` cuts the connection when it passes. The
    /// name's resolution is not bounded (the system resolver's own timeouts apply).
    package var deadline: Duration?
    /// Answers longer than this fail (`HTTPClientError.isTooLarge`) instead of growing memory by their size.
    package var largestResponse: Int?

    package init(trust: TLSClientTrust?, timeoutSeconds: Int = 10, httpsProxy: HTTPSProxy? = nil) {
        self.trust = trust
        self.timeoutSeconds = timeoutSeconds
        self.httpsProxy = httpsProxy
    }

    package func exchange(secure: Bool, host: String, port: Int, method: String, target: String,
                         headers: [(String, String)] = [], body: [UInt8] = []) throws(HTTPClientError) -> HTTPResponse {
        let tunnel = secure ? httpsProxy.flatMap { $0.applies(to: host) ? $0 : nil } : nil
        let end = deadline.map { ContinuousClock.now + $0 }
        let fd = try Self.openConnection(host: tunnel?.host ?? host, port: tunnel?.port ?? port, timeoutSeconds: timeoutSeconds, until: end)
        let watchdog = end.map { ExchangeWatchdog(fd: fd, end: $0) }
        defer { Socket.close(fd) }
        let outcome: Result<HTTPResponse, HTTPClientError>
        do throws(HTTPClientError) {
            outcome = .success(try converse(fd, secure: secure, tunnel: tunnel != nil, host: host, port: port, method: method, target: target,
                                            headers: headers, body: body, end: end))
        } catch {
            outcome = .failure(error)
        }
        // A peer cut off at the deadline may look like one that closed: what it sent is not the answer.
        if watchdog?.finish() == .fired { throw HTTPClientError("no answer within the deadline", isTimeout: true) }
        return try outcome.get()
    }

    /// The exchange on an open connection: the proxy's tunnel, TLS, the request, the whole answer.
    private func converse(_ fd: Int32, secure: Bool, tunnel: Bool, host: String, port: Int, method: String, target: String,
                          headers: [(String, String)], body: [UInt8], end: ContinuousClock.Instant?) throws(HTTPClientError) -> HTTPResponse {
        if tunnel {
            try Self.bound(fd, by: end)
            try Self.openTunnel(fd, to: host, port: port)
        }
        let stream: any ByteStream
        if secure {
            guard let trust else { throw HTTPClientError("https://\(host):\(port) needs a CA to trust (--ca)") }
            try Self.bound(fd, by: end)
            stream = try TLSClientStream(fd: fd, trust: trust, host: host)
        } else {
            stream = PlainStream(fd: fd)
        }
        var request: [UInt8] = []
        let authority = port == (secure ? 443 : 80) ? host : "\(host):\(port)"
        HTTPClientCodec.encodeRequest(method: method, target: target, host: authority, headers: headers + [("Connection", "close")], body: body, into: &request)
        try Self.bound(fd, by: end)
        try stream.writeAll(request)
        var received: [UInt8] = []
        while true {
            try Self.bound(fd, by: end)
            guard try stream.read(into: &received) else { break }
            if let largestResponse, received.count > largestResponse { throw HTTPClientError("an answer over \(largestResponse) bytes", isTooLarge: true) }
        }
        return try Self.parse(received)
    }

    /// The response in `bytes` (everything the server sent before closing): head, then a body framed
    /// by Content-Length, chunked coding, or the end of the connection.
    static func parse(_ bytes: [UInt8]) throws(HTTPClientError) -> HTTPResponse {
        guard let headEnd = HTTPClientCodec.headEnd(in: bytes) else { throw HTTPClientError("the connection closed before a whole response head (\(bytes.count) bytes)") }
        let head: HTTPClientCodec.ResponseHead
        do {
            head = try bytes.withUnsafeBufferPointer { buffer throws(HTTPDecodingError) in
                try HTTPClientCodec.parseResponseHead(UnsafeBufferPointer(rebasing: buffer[0..<(headEnd - 4)]))
            }
        } catch { throw HTTPClientError("bad response head: \(error)") }
        var body = Array(bytes[headEnd...])
        if head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = head.contentLength {
            guard body.count >= length else { throw HTTPClientError("the connection closed inside a body (\(body.count) of \(length) bytes)") }
            body = Array(body.prefix(length))
        }
        return HTTPResponse(status: HTTPStatus(head.status), headers: head.headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws(HTTPClientError) -> [UInt8] {
        var body: [UInt8] = [], index = 0
        while true {
            guard let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else {
                throw HTTPClientError("truncated chunked body")
            }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingASCIISpaces(), radix: 16) else { throw HTTPClientError("bad chunk size \"\(sizeText)\"") }
            index = lineEnd + 2
            if size == 0 { return body }
            guard index + size <= bytes.count else { throw HTTPClientError("truncated chunk") }
            body += bytes[index..<(index + size)]
            index += size + 2
        }
    }

    /// Receive and send timeouts on a blocking socket. Here, where `timeval` is named: in a whole-module
    /// (release) build it belongs to the C module that loads <sys/time.h> first, COpenSSL's.
    static func setTimeouts(_ fd: Int32, seconds: Int) {
        setTimeouts(fd, duration: .seconds(seconds))
    }

    static func setTimeouts(_ fd: Int32, duration: Duration) {
        let (seconds, attoseconds) = duration.components
        // At least a millisecond: a zero timeval means "wait forever".
        let microseconds = max(Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000), 1000)
        var timeout = timeval(tv_sec: microseconds / 1_000_000, tv_usec: .init(microseconds % 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// `CONNECT host:port` on a connection to the proxy; returns once the proxy answered 200.
    private static func openTunnel(_ fd: Int32, to host: String, port: Int) throws(HTTPClientError) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let stream = PlainStream(fd: fd)
        try stream.writeAll(Array("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n".utf8))
        // Byte by byte: the TLS handshake that follows must find its first byte still in the socket.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !(head.count >= 4 && head.suffix(4).elementsEqual([13, 10, 13, 10])) {
            guard head.count < 8192 else { throw HTTPClientError("the proxy's answer to CONNECT \(authority) has no end") }
            let count = recv(fd, &byte, 1, 0)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { throw HTTPClientError("the proxy closed the connection before answering CONNECT \(authority)") }
            head.append(byte)
        }
        let statusLine = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        guard statusLine.split(separator: " ").dropFirst().first == "200" else {
            throw HTTPClientError("the proxy refused CONNECT \(authority): \(statusLine)")
        }
    }

    /// Sets `fd`'s send and receive timeouts to what is left until `end`; throws once nothing is left.
    /// Without an end, the timeouts set when the connection opened stay.
    static func bound(_ fd: Int32, by end: ContinuousClock.Instant?) throws(HTTPClientError) {
        guard let end else { return }
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { throw HTTPClientError("no answer within the deadline", isTimeout: true) }
        setTimeouts(fd, duration: left)
    }

    /// The first address of `host` that accepts, with send and receive timeouts set: `timeoutSeconds`
    /// each, or what is left until `end` (each further address tries only in what the earlier ones left).
    package static func openConnection(host: String, port: Int, timeoutSeconds: Int, until end: ContinuousClock.Instant? = nil) throws(HTTPClientError) -> Int32 {
        let addresses: [Socket.ResolvedAddress]
        do { addresses = try Socket.resolve(host: host, port: port) } catch { throw HTTPClientError("\(error)") }
        var failures: [String] = []
        for address in addresses {
            let fd = Socket.makeStreamSocket(family: address.family, nonBlocking: false)
            guard fd >= 0 else { failures.append(SocketError.makeFailed("socket").description); continue }
            if end != nil {
                do throws(HTTPClientError) { try bound(fd, by: end) } catch {
                    Socket.close(fd)
                    throw HTTPClientError((failures + ["no connection within the deadline"]).joined(separator: "; "), isTimeout: true)
                }
            } else {
                setTimeouts(fd, seconds: timeoutSeconds)
            }
            #if !os(Linux)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            var storage = address.storage
            let result = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc_connect(fd, $0, address.length) }
            }
            if result == 0 { return fd }
            failures.append("connect to \(Socket.describeWithPort(storage: storage)): \(SocketError.makeFailed("connect").message)")
            Socket.close(fd)
        }
        throw HTTPClientError(failures.joined(separator: "; "))
    }
}

/// An `http://host:port` proxy for https exchanges, with the hosts it is bypassed for.
package struct HTTPSProxy: Sendable, Equatable {
    package var host: String
    package var port: Int
    /// Names reached directly: exact, or by suffix when written with a leading dot (`NO_PROXY`'s form).
    package var bypass: [String]

    package init(host: String, port: Int, bypass: [String] = []) {
        self.host = host
        self.port = port
        self.bypass = bypass
    }

    /// From `HTTPS_PROXY`/`https_proxy` and `NO_PROXY`/`no_proxy`, as curl and Python's requests read them;
    /// nil when none is set or the value is not an `http://host:port` URL.
    package init?(environment: [String: String]) {
        guard let value = environment["HTTPS_PROXY"] ?? environment["https_proxy"], !value.isEmpty else { return nil }
        var rest = Substring(value)
        if rest.hasPrefix("http://") { rest = rest.dropFirst(7) }
        rest = rest.prefix { $0 != "/" }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) else { return nil }
        let noProxy = environment["NO_PROXY"] ?? environment["no_proxy"] ?? ""
        self.init(host: String(rest[..<colon].filter { $0 != "[" && $0 != "]" }), port: port,
                  bypass: noProxy.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty })
    }

    /// Loopback is never proxied; nor is a name `bypass` lists (`*` bypasses everything).
    package func applies(to host: String) -> Bool {
        let name = host.lowercased()
        guard !["localhost", "127.0.0.1", "::1"].contains(name) else { return false }
        return !bypass.contains { entry in
            entry == "*" || entry == name || name.hasSuffix(entry.hasPrefix(".") ? entry : "." + entry)
        }
    }
}

@inline(__always) private func Glibc_connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if os(Linux)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}

/// Blocking reads and writes on a connected socket, plain or through TLS.
private protocol ByteStream {
    /// Appends what arrived; false at the end of the stream.
    func read(into buffer: inout [UInt8]) throws(HTTPClientError) -> Bool
    func writeAll(_ bytes: [UInt8]) throws(HTTPClientError)
}

private struct PlainStream: ByteStream {
    let fd: Int32

    func read(into buffer: inout [UInt8]) throws(HTTPClientError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { buffer += chunk[0..<count]; return true }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw errno == EAGAIN || errno == EWOULDBLOCK ? HTTPClientError("timed out waiting for the answer", isTimeout: true) : HTTPClientError(SocketError.makeFailed("recv").description)
        }
    }

    func writeAll(_ bytes: [UInt8]) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if written < 0 {
                if errno == EINTR { continue }
                throw HTTPClientError(SocketError.makeFailed("send").description)
            }
            offset += written
        }
    }
}

/// A client `SSL` on a blocking socket; the handshake verifies the chain and the host name.
private final class TLSClientStream: ByteStream {
    private let ssl: OpaquePointer

    init(fd: Int32, trust: TLSClientTrust, host: String) throws(HTTPClientError) {
        ERR_clear_error()
        guard let ssl = SSL_new(trust.context) else { throw HTTPClientError(TLSError("SSL_new").description) }
        self.ssl = ssl
        let isIPAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        guard SSL_set_fd(ssl, fd) == 1, TLSShims_expectPeerName(ssl, host, isIPAddress ? 1 : 0) == 1 else {
            throw HTTPClientError(TLSError("setting up TLS for \(host)").description)
        }
        SSL_set_connect_state(ssl)
        errno = 0   // so that a failure without a system error is told apart from one with
        let result = TLSShims_handshake(ssl)
        let systemError = errno   // read at once: what runs next may change it
        guard result == 1 else {
            let verification = SSL_get_verify_result(ssl)
            let failure = SSL_get_error(ssl, result)
            let reasons = TLSError.drainErrorQueue()
            var detail = verification != X509_V_OK ? String(cString: X509_verify_cert_error_string(verification)) : reasons.joined(separator: "; ")
            if detail.isEmpty {
                // With no reason queued: the server closed the connection, or the socket itself failed.
                if failure == SSL_ERROR_ZERO_RETURN || (failure == SSL_ERROR_SYSCALL && systemError == 0) {
                    detail = "the server closed the connection"
                } else if (failure == SSL_ERROR_WANT_READ || failure == SSL_ERROR_WANT_WRITE), systemError == EAGAIN || systemError == EWOULDBLOCK {
                    detail = "timed out"   // the socket's receive or send timeout
                } else {
                    detail = "SSL error \(failure), errno \(systemError)"
                }
            }
            throw HTTPClientError("TLS handshake with \(host) failed: \(detail)")
        }
    }

    deinit { SSL_free(ssl) }

    func read(into buffer: inout [UInt8]) throws(HTTPClientError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let result = chunk.withUnsafeMutableBytes { TLSShims_read(ssl, $0.baseAddress, Int32($0.count)) }
        if result > 0 { buffer += chunk[0..<Int(result)]; return true }
        let savedErrno = errno
        switch TLSShims_classify(ssl, result) {
        case TLSShims_Outcome_closed:
            _ = TLSError.drainErrorQueue()
            return false
        default:
            let reasons = TLSError.drainErrorQueue()
            if reasons.isEmpty, savedErrno == 0 { return false }
            if reasons.isEmpty, savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { throw HTTPClientError("timed out waiting for the answer", isTimeout: true) }
            throw HTTPClientError("TLS read: \(reasons.isEmpty ? "errno \(savedErrno)" : reasons.joined(separator: "; "))")
        }
    }

    func writeAll(_ bytes: [UInt8]) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { TLSShims_write(ssl, $0.baseAddress! + offset, Int32(clamping: $0.count - offset)) }
            guard result > 0 else { throw HTTPClientError("TLS write: \(TLSError.drainErrorQueue().joined(separator: "; "))") }
            offset += Int(result)
        }
    }
}
