import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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
    try await run(OpenSSLTool.path, ["s_client", "-connect", "127.0.0.1:\(server.port)", "-servername", "localhost", "-CAfile", server.caPath] + arguments,
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
        do {
            fd = try PortableSocket.connect(port: port, receiveTimeoutSeconds: receiveTimeoutSeconds)
        } catch {
            throw LiveTestFailure("\(error)")
        }
    }

    deinit { PortableSocket.close(fd) }

    /// False once the peer reset or closed the connection for writing.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { PortableSocket.send(fd, $0) } == bytes.count
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
