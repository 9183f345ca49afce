import FoundationGaps
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small, careful file I/O for keys and certificates.
package enum SecureFile {
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(.fileSystem, "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `contents` atomically (temp file + rename) with `mode` set from creation, so a private
    /// key is never readable by others, not even for an instant.
    package static func write(_ contents: String, to path: String, mode permissions: Int) throws {
        let mode = mode_t(permissions)
        let temporary = "\(path).tmp-\(getpid())-\(SecureRandom.base64URLString(byteCount: 6))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw error("cannot create \(temporary)") }
        var ok = fchmod(descriptor, mode) == 0   // the umask may have removed bits we asked for
        let bytes = Array(contents.utf8)
        var written = 0
        while ok, written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if result < 0, errno == EINTR { continue }
            if result <= 0 { ok = false } else { written += result }
        }
        ok = fsync(descriptor) == 0 && ok
        close(descriptor)
        guard ok, rename(temporary, path) == 0 else {
            let failure = error("cannot write \(path)")
            unlink(temporary)
            throw failure
        }
    }

    /// Narrows an existing file to `mode` when it is more open (e.g. a key copied in by hand).
    static func restrict(_ path: String, to mode: mode_t) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw error("cannot stat \(path)") }
        if status.st_mode & 0o777 & ~mode != 0, chmod(path, mode) != 0 {
            throw error("cannot chmod \(path)")
        }
    }

    static func permissions(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o777
    }

    static func createDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            // Foundation's error prints as an NSCocoaErrorDomain dump: say what is wrong instead.
            var prefix = URL(fileURLWithPath: path).standardizedFileURL
            while prefix.path != "/" {
                if FileSystemEntry.isDirectory(atPath: prefix.path) == false {
                    throw CryptoError(.fileSystem, "cannot use \(path) as the certificate directory: \(prefix.path) is a file")
                }
                prefix.deleteLastPathComponent()
            }
            let reason = (error as? CocoaError)?.underlying.flatMap { ($0 as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } }
            throw CryptoError(.fileSystem, "cannot create directory \(path): \(reason ?? error.localizedDescription)")
        }
    }

    #if canImport(Glibc)
    private static let systemWrite = Glibc.write
    #else
    private static let systemWrite = Darwin.write
    #endif

    private static func error(_ message: String) -> CryptoError {
        CryptoError(.fileSystem, "\(message): \(String(cString: strerror(errno)))")
    }
}
