#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The few system calls the tests' raw clients make, in one place per platform: the socket type's
/// spelling, a send that cannot raise SIGPIPE, close and kill differ between Glibc and Darwin.
package enum PortableSocket {
    /// A connected blocking TCP socket to an IPv4 address, each receive bounded by `receiveTimeoutSeconds`.
    package static func connect(host: String = "127.0.0.1", port: Int, receiveTimeoutSeconds: Int = 20) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw PortableSocketError("socket() failed: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Self.close(fd)
            throw PortableSocketError("connect to \(host):\(port) failed: \(String(cString: strerror(code)))")
        }
        return fd
    }

    private static func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #else
        Darwin.connect(fd, address, length)
        #endif
    }

    /// Bytes sent, or -1; a peer that has gone makes it fail with EPIPE instead of killing the test process.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
        #endif
    }

    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    package static func signal(_ pid: Int32, _ number: Int32) {
        #if canImport(Glibc)
        _ = Glibc.kill(pid, number)
        #else
        _ = Darwin.kill(pid, number)
        #endif
    }
}

package struct PortableSocketError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
