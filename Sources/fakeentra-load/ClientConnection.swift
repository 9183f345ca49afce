#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EntraHTTP

/// One keep-alive HTTP/1.1 connection over a blocking socket, as a benchmark client needs it: write a
/// request, read the whole response. It reconnects when the server closed the previous exchange.
final class ClientConnection {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let host: String
    let port: UInt16
    private var socket: Int32 = -1
    private var pending: [UInt8] = []
    private var output: [UInt8] = []

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    deinit { disconnect() }

    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        if socket < 0 { try connect() }
        output.removeAll(keepingCapacity: true)
        HTTPClientCodec.encodeRequest(method: method, target: target, host: "\(host):\(port)", headers: headers, body: body, into: &output)
        try writeAll(output)
        let (head, headLength) = try readHead()
        pending.removeFirst(headLength)
        var body: [UInt8]
        if let length = head.contentLength {
            while pending.count < length { guard try fill() else { throw Failure(description: "connection closed inside a body") } }
            body = Array(pending.prefix(length))
            pending.removeFirst(length)
        } else {
            while try fill() {}
            body = pending
            pending.removeAll()
        }
        if !head.keepsAlive || head.contentLength == nil { disconnect() }
        return Response(status: head.status, headers: head.headers, body: body)
    }

    private func readHead() throws -> (HTTPClientCodec.ResponseHead, Int) {
        var searched = 0
        while true {
            if let end = HTTPClientCodec.headEnd(in: pending, from: searched) {
                let head = try pending.withUnsafeBufferPointer { bytes in
                    do { return try HTTPClientCodec.parseResponseHead(UnsafeBufferPointer(rebasing: bytes[0..<(end - 4)])) } catch { throw Failure(description: "bad response head: \(error)") }
                }
                return (head, end)
            }
            searched = max(0, pending.count - 3)
            guard try fill() else { throw Failure(description: "connection closed before a response") }
        }
    }

    /// Reads what the socket has; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw Failure(description: "read failed: errno \(errno)")
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(socket, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "write failed: errno \(errno)")
            }
            offset += written
        }
    }

    private func connect() throws {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        var noDelay: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw Failure(description: "\(host) is not an IPv4 address")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect to \(host):\(port) failed: errno \(errno)")
        }
        socket = fd
        pending.removeAll(keepingCapacity: true)
    }

    func disconnect() {
        if socket >= 0 { close(socket) }
        socket = -1
        pending.removeAll(keepingCapacity: true)
    }
}
