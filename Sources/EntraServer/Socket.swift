#if os(Linux)
import Glibc
#else
import Darwin
#endif
// The socket address types are declared by the system headers OpenSSL's shim includes too; without
// Foundation the compiler attributes them to that module.
import COpenSSLShims

/// A failed system call, with errno and its text captured where it failed.
package struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    package let operation: String
    package let code: Int32
    package let message: String

    static func makeFailed(_ operation: String, code: Int32 = errno) -> SocketError {
        SocketError(operation: operation, code: code, message: String(cString: strerror(code)))
    }

    init(operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    package var description: String { "\(operation) failed: \(message) (errno \(code))" }
}

/// Thin wrappers over POSIX sockets; every descriptor is non-blocking and close-on-exec.
enum Socket {
    struct ResolvedAddress {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
    }

    /// Numeric or named host → addresses to bind (`localhost` may give both 127.0.0.1 and ::1).
    static func resolve(host: String, port: Int) throws(SocketError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError(operation: "getaddrinfo(\(host))", code: status, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var result: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            }
            let address = ResolvedAddress(storage: storage, length: info.pointee.ai_addrlen, family: info.pointee.ai_family)
            if !result.contains(where: { describe(storage: $0.storage) == describe(storage: storage) }) { result.append(address) }
            cursor = info.pointee.ai_next
        }
        return result
    }

    /// A TCP socket, close-on-exec (and non-blocking when asked) from the start on Linux. The one place
    /// that names the SOCK_ constants: in a whole-module (release) build they belong to whichever C
    /// module loads <sys/socket.h> first, and COpenSSL's headers do, behind a `private import`.
    static func makeStreamSocket(family: Int32, nonBlocking: Bool) -> Int32 {
        #if os(Linux)
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return socket(family, Int32(SOCK_STREAM.rawValue) | flags, 0)
        #else
        // Darwin has no SOCK_CLOEXEC: set right after, before any child can be spawned from this thread's
        // point of view (adapters and `serve --background` spawn with posix_spawn, which honours it).
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
        #endif
    }

    static func makeListener(_ address: ResolvedAddress, port: Int, backlog: Int32) throws(SocketError) -> Int32 {
        let fd = makeStreamSocket(family: address.family, nonBlocking: true)
        guard fd >= 0 else { throw .makeFailed("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            // One listener per resolved address: keep ::1 from also claiming 127.0.0.1's port.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var storage = address.storage
        setPort(&storage, port: port)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) }
        }
        guard bound == 0 else {
            let error = SocketError.makeFailed("bind(\(describeWithPort(storage: storage)))")
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = SocketError.makeFailed("listen")
            close(fd)
            throw error
        }
        #if !os(Linux)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        #endif
        return fd
    }

    /// The address a descriptor is bound to (for port 0) or connected from.
    static func localAddress(_ fd: Int32) -> (host: String, port: Int) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (describe(storage: storage), port(of: storage))
    }

    /// `send` without SIGPIPE: MSG_NOSIGNAL on Linux; on Darwin the socket has SO_NOSIGPIPE (set at accept).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if os(Linux)
        Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
        #endif
    }

    /// Whether the socket has input waiting (a peek of one byte that does not block or consume).
    static func hasInput(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// `.writes` after a connection's last answer; `.both` on a listener, which makes every loop's
    /// accept fail, which is how they let go of it.
    static func shutdown(_ fd: Int32, _ directions: ShutdownDirections) {
        let how = directions == .writes ? SHUT_WR : SHUT_RDWR
        #if os(Linux)
        _ = Glibc.shutdown(fd, Int32(how))
        #else
        _ = Darwin.shutdown(fd, how)
        #endif
    }

    enum ShutdownDirections { case writes, both }

    static func close(_ fd: Int32) {
        #if os(Linux)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    static func describe(storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &storage) { pointer -> String in
            if Int32(pointer.pointee.ss_family) == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var address = inet.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return String(nulTerminated: text)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                var address = inet6.pointee.sin6_addr
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                return String(nulTerminated: text)
            }
        }
    }

    /// `127.0.0.1:8443` or `[::1]:8443`: which port is taken matters as much as which address.
    static func describeWithPort(storage: sockaddr_storage) -> String {
        let host = describe(storage: storage)
        return host.contains(":") ? "[\(host)]:\(port(of: storage))" : "\(host):\(port(of: storage))"
    }

    static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        return withUnsafePointer(to: &storage) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        }
    }

    private static func setPort(_ storage: inout sockaddr_storage, port: Int) {
        let family = Int32(storage.ss_family)
        withUnsafeMutablePointer(to: &storage) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = UInt16(port).bigEndian }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = UInt16(port).bigEndian }
            }
        }
    }
}

/// Monotonic nanoseconds: timeouts must not jump with the wall clock.
@inline(__always) func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

extension Duration {
    /// Saturating: a span too long for 64-bit nanoseconds (a scenario's delay of 1e19 s) is "never".
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = UInt64(max(0, seconds)).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        return whole.saturatingAdding(UInt64(max(0, attoseconds) / 1_000_000_000))
    }
}

extension UInt64 {
    /// Deadline arithmetic: an instant plus a span never wraps around to the past.
    func saturatingAdding(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension String {
    /// Text from a C buffer filled by a system or OpenSSL call.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on now, for a process the caller starts next to listen
/// on (the MCP server of an MCP conformance case).
package func unusedLoopbackPort() throws(SocketError) -> Int {
    guard let address = try Socket.resolve(host: "127.0.0.1", port: 0).first else {
        throw SocketError(operation: "resolve(127.0.0.1)", code: 0, message: "no address")
    }
    let fd = try Socket.makeListener(address, port: 0, backlog: 1)
    defer { Socket.close(fd) }
    return Socket.localAddress(fd).port
}
