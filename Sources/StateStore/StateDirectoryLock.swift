#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationGaps

/// One server per `--state` folder. SQLite in WAL mode lets two processes write the same file, and each
/// server keeps its directory in memory and writes it whole: the last writer would win and the other's
/// users would be gone after a restart. An exclusive `flock` on `DIR/fakeentra.lock`, held for the
/// process's life, makes the second server stop at start-up naming the first one's pid. The kernel drops
/// the lock when the holder dies (`kill -9` included), so a stale lock file never blocks anyone.
package final class StateDirectoryLock: Sendable {
    package static let fileName = "fakeentra.lock"
    private let descriptor: Int32
    package let path: String

    package init(directory: String) throws(StateStoreError) {
        path = (directory).appendingPathComponent(Self.fileName)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Close-on-exec: an adapter child must not hold the folder after this server exits.
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let holder = Self.recordedHolder(descriptor)
            close(descriptor)
            guard reason == EWOULDBLOCK else { throw .cannotOpen(path: path, reason: String(cString: strerror(reason))) }
            throw .inUse(directory: directory, holder: holder)
        }
        let record = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = record.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The pid the holder wrote, if it is there yet (it writes it right after taking the lock).
    private static func recordedHolder(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Why `--state` cannot be used; each renders as the sentence `serve` prints before exiting 1.
package enum StateStoreError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case inUse(directory: String, holder: Int32?)
    case unreadable(path: String, what: String, reason: String)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open \(path): \(reason)"
        case .inUse(let directory, let holder):
            "another fakeentra \(holder.map { "(pid \($0)) " } ?? "")is serving \(directory); stop it, or give this one another --state folder"
        case .unreadable(let path, let what, let reason):
            "\(path): \(what) cannot be read (\(reason)); nothing was changed. Restore the file, move it away, or start with --state-reset to start over on purpose"
        }
    }
}
