import Foundation
#if os(Linux)
import Glibc
#endif

/// curl against the server, trusting only its CA. `arguments` go before the URLs; paths are
/// appended to the server's base URL.
@discardableResult
func curl(_ server: LiveServer, _ paths: [String], _ arguments: [String] = [], timeout: Duration = .seconds(20)) async throws -> ChildProcess.Snapshot {
    try await run("/usr/bin/curl", ["-sS", "--cacert", server.caPath] + arguments + paths.map { server.url + $0 }, timeout: timeout)
}

/// `openssl s_client` to the server's TLS port, fed `input` on stdin. With `-quiet` it keeps the
/// connection until the server closes it (implicit `-ign_eof`).
@discardableResult
func sClient(_ server: LiveServer, _ arguments: [String], input: String = "", timeout: Duration = .seconds(20)) async throws -> ChildProcess.Snapshot {
    try await run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(server.port)", "-servername", "localhost", "-CAfile", server.caPath] + arguments,
                  stdin: Data(input.utf8), timeout: timeout)
}

/// An HTTP/1.1 request as bytes on the wire.
func rawRequest(_ method: String = "GET", _ target: String, headers: [String] = [], body: String = "", close: Bool = false) -> String {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: localhost"] + headers
    if !body.isEmpty { lines.append("Content-Length: \(body.utf8.count)") }
    if close { lines.append("Connection: close") }
    return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
}

/// The status codes of the HTTP responses in `text`, in order. Status lines are found anywhere, not
/// only at line starts: a body without a final newline runs straight into the next response.
func statusCodes(in text: String) -> [Int] {
    text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { rest in
        let code = rest.prefix(4)
        guard code.count == 4, code.last == " " else { return nil }
        return Int(code.prefix(3))
    }
}

/// Status codes of the responses `curl -v` reports receiving (`< HTTP/1.1 404 Not Found`), interim ones included.
func receivedStatusCodes(inVerbose text: String) -> [Int] {
    text.split(whereSeparator: \.isNewline).compactMap { line in
        guard line.hasPrefix("< HTTP/") else { return nil }
        return line.split(separator: " ").dropFirst(2).first.flatMap { Int($0) }
    }
}

/// A blocking TCP client for what curl cannot do: trickle bytes, hold a request half sent, see the
/// server close. Every receive is bounded by `SO_RCVTIMEO`, so a server that never answers fails the
/// test instead of hanging it. Use from `blocking { }`, never on the cooperative pool.
final class TCPConnection: @unchecked Sendable {
    let fd: Int32

    init(port: Int, receiveTimeoutSeconds: Int = 20) throws {
        // `self.fd` is set only once connected: a throw after every property is set runs `deinit`, which
        // would close the number a second time, when another test's socket may already hold it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LiveTestFailure("socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw LiveTestFailure("connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(code)))")
        }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// False once the peer reset or closed the connection for writing.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until `text` appears, the peer closes, or the receive timeout passes.
    func receive(until text: String) -> (received: String, closed: Bool) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !String(decoding: received, as: UTF8.self).contains(text) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), count == 0 || errno == ECONNRESET) }
            received.append(contentsOf: buffer[0..<count])
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Reads everything until the peer closes (or the receive timeout passes: `closed` is then false).
    func receiveUntilClosed() -> (received: String, closed: Bool) {
        receive(until: "\u{0}never\u{0}")
    }

    /// Whether the peer has closed, without blocking (pending data is left unread).
    var peerHasClosed: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}

/// Whether a new TCP connection to `port` is refused (nothing listening any more).
func connectionIsRefused(port: Int) -> Bool {
    (try? TCPConnection(port: port)) == nil
}

/// Waits (inotify, no polling) until `path` exists, or `timeoutMilliseconds` pass. Returns whether it exists.
func waitForFile(_ path: String, timeoutMilliseconds: Int32 = 20_000) -> Bool {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    guard watcher >= 0 else { return FileManager.default.fileExists(atPath: path) }
    defer { close(watcher) }
    // Watch first, then look: a file created in between is seen either way.
    _ = inotify_add_watch(watcher, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE))
    var deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !FileManager.default.fileExists(atPath: path) {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return false }
        var poller = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
        if poll(&poller, 1, milliseconds) > 0 { _ = read(watcher, &buffer, buffer.count) }
        if poller.revents & Int16(POLLNVAL) != 0 { deadline = .now }
    }
    return true
}
