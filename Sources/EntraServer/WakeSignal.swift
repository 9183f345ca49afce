#if canImport(Glibc)
import Glibc
private import COpenSSLShims
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes a loop blocked in its event queue from another thread: an eventfd on Linux, a non-blocking
/// pipe elsewhere. Both are plain readable descriptors, so every backend watches them the same way.
final class WakeSignal: @unchecked Sendable {
    /// Watched by the loop.
    let readFD: Int32
    private let writeFD: Int32

    init() throws(SocketError) {
        #if os(Linux)
        readFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard readFD >= 0 else { throw .makeFailed("eventfd") }
        writeFD = readFD
        #else
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .makeFailed("pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
        #endif
    }

    deinit {
        close(readFD)
        if writeFD != readFD { close(writeFD) }
    }

    /// Thread-safe. A full pipe already means "wake up", so a failed write loses nothing.
    func signal() {
        var one: UInt64 = 1
        _ = write(writeFD, &one, 8)
    }

    /// Called by the loop before it looks at what it was woken for.
    func drain() {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &buffer, { read(readFD, $0.baseAddress, $0.count) }) == 32, writeFD != readFD {}
    }
}
