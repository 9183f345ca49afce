#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program run to completion with `input` on its standard input and both outputs read as they come
/// (so a large output never fills a pipe the child then blocks on), on `posix_spawn` and `poll`.
package enum ChildProcess {
    package struct Outcome: Sendable {
        /// The exit status; 127 when the program could not be started, 128 + n when signal n ended it.
        package var status: Int32
        package var output: Data
        package var errors: Data
    }

    /// `arguments[0]` is looked up on `PATH`.
    package static func run(_ arguments: [String], input: Data = Data()) throws -> Outcome {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environment)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            return Outcome(status: 127, output: Data(), errors: Data(String(cString: strerror(spawned)).utf8))
        }
        // A child gone before it read its input must not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(inPipe[1], raw.baseAddress! + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break }
                offset += written
            }
        }
        close(inPipe[1])
        var output = Data(), errors = Data()
        var open: [Int32] = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else { if errno == EINTR { continue } else { break } }
            for entry in polled where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == outPipe[0] { output.append(contentsOf: buffer[..<count]) } else { errors.append(contentsOf: buffer[..<count]) }
                } else if count == 0 || errno != EINTR {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7f == 0
        return Outcome(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output: output, errors: errors)
    }

    /// The running program's own path (`/proc/self/exe`; on Apple's platforms, Foundation's answer).
    package static var currentExecutablePath: String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        #elseif canImport(Darwin)
        return Bundle.main.executablePath
        #else
        return nil
        #endif
    }
}

/// What a path names, from stat(2): the same answer on every platform (Foundation's `fileExists(atPath:
/// isDirectory:)` takes a `Bool` on Linux and an `ObjCBool` on Apple's).
package enum FileSystemEntry {
    /// true for a directory, false for anything else that exists, nil when nothing is there.
    package static func isDirectory(atPath path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT == S_IFDIR
    }
}
