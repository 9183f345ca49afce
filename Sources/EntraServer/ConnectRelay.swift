#if os(Linux)
import Glibc
#else
import Darwin
#endif
import Synchronization

/// An HTTP CONNECT proxy on loopback that tunnels the names it routes, and only those, to a FakeEntra
/// server. Clients that only accept the service's own host names (an External ID authority is
/// `https://{subdomain}.ciamlogin.com/`, its issuer `https://{tenantid}.ciamlogin.com/…`) reach the server
/// through it, as `HTTPS_PROXY`, the way a hosts-file line would on a laptop, without root and without a
/// wildcard a hosts file cannot express. Anything else is refused with 403, so nothing leaves the machine.
package final class ConnectRelay: Sendable {
    /// Where a `CONNECT host:port` goes: nil refuses it.
    package typealias Routes = @Sendable (_ host: String, _ port: Int) -> (host: String, port: Int)?

    package let port: Int
    private let listener: Int32
    private let routes: Routes
    private let state = Mutex(State())
    private let limits: Limits

    package struct Limits: Sendable {
        /// Tunnels open at once; one more is refused with 503.
        package var connections = 64
        /// A request head longer than this is refused with 431.
        package var headBytes = 8 * 1024
        /// Seconds to send the head, and seconds a tunnel may stay silent both ways.
        package var headSeconds = 10
        package var idleSeconds = 60

        package init() {}
    }

    private struct State {
        var open = 0
        var stopped = false
        var refused: [String] = []
    }

    /// Listens on 127.0.0.1 at an ephemeral port.
    package init(limits: Limits = Limits(), routes: @escaping Routes) throws(SocketError) {
        guard let loopback = try Socket.resolve(host: "127.0.0.1", port: 0).first else {
            throw SocketError(operation: "getaddrinfo(127.0.0.1)", code: 0, message: "no address")
        }
        listener = try Socket.makeListener(loopback, port: 0, backlog: 64)
        port = Socket.localAddress(listener).port
        self.routes = routes
        self.limits = limits
        NamedThread.start("connect-relay") { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:PORT`, for `HTTPS_PROXY`.
    package var url: String { "http://127.0.0.1:\(port)" }

    /// The `CONNECT` targets refused so far: a test asserts nothing tried to leave the machine.
    package var refusedTargets: [String] { state.withLock { $0.refused } }

    /// Stops accepting; open tunnels end at their next idle timeout or when either side closes.
    package func stop() {
        let wasRunning = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if wasRunning { Socket.shutdown(listener, .both) }
    }

    private func acceptLoop() {
        defer { Socket.close(listener) }
        while !state.withLock({ $0.stopped }) {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) & ~O_NONBLOCK)
            #if !os(Linux)
            var one: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let admitted = state.withLock { state in
                guard state.open < limits.connections else { return false }
                state.open += 1
                return true
            }
            guard admitted else {
                Self.answer(client, "503 Service Unavailable")
                Socket.close(client)
                continue
            }
            NamedThread.start("relay-tunnel") { [self] in
                defer { state.withLock { $0.open -= 1 } }
                serve(client)
            }
        }
    }

    private func serve(_ client: Int32) {
        defer { Socket.close(client) }
        BlockingHTTPClient.setTimeouts(client, seconds: limits.headSeconds)
        guard let head = readHead(client) else { return Self.answer(client, "431 Request Header Fields Too Large") }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"), let targetPort = Int(parts[1][parts[1].index(after: colon)...]) else {
            state.withLock { $0.refused.append(requestLine) }
            return Self.answer(client, "405 Method Not Allowed")
        }
        let targetHost = String(parts[1][..<colon].filter { $0 != "[" && $0 != "]" }).lowercased()
        guard let upstreamAddress = routes(targetHost, targetPort) else {
            state.withLock { $0.refused.append(String(parts[1])) }
            return Self.answer(client, "403 Forbidden")
        }
        guard let upstream = Self.connect(upstreamAddress.host, upstreamAddress.port) else { return Self.answer(client, "502 Bad Gateway") }
        defer { Socket.close(upstream) }
        Self.answer(client, "200 Connection Established")
        splice(client, upstream)
    }

    /// The bytes up to the blank line, or nil past the limit or the head's timeout.
    private func readHead(_ fd: Int32) -> String? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        // One byte at a time: whatever follows the head (a client may pipeline its TLS hello) stays in the socket.
        while head.count < limits.headBytes {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
            if head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) { return String(decoding: head, as: UTF8.self) }
        }
        return nil
    }

    private func splice(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, 2, Int32(limits.idleSeconds * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return }
            for index in 0..<2 where descriptors[index].revents != 0 {
                let from = descriptors[index].fd, to = descriptors[1 - index].fd
                let count = recv(from, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                let sent = buffer.withUnsafeBytes { Self.sendAll(to, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                guard sent else { return }
            }
        }
    }

    private static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Socket.send(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func answer(_ fd: Int32, _ status: String) {
        let bytes = Array("HTTP/1.1 \(status)\r\n\(status.hasPrefix("200") ? "" : "Content-Length: 0\r\nConnection: close\r\n")\r\n".utf8)
        _ = bytes.withUnsafeBytes { sendAll(fd, $0) }
    }

    private static func connect(_ host: String, _ port: Int) -> Int32? {
        try? BlockingHTTPClient.openConnection(host: host, port: port, timeoutSeconds: 10)
    }
}
