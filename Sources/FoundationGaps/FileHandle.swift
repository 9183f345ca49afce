// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
package import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor with the reads, writes and seeks FakeEntra makes (the command line's output,
/// a HAR file read in chunks, an adapter's stderr tail), on POSIX calls.
package final class FileHandle: @unchecked Sendable {
    package let fileDescriptor: Int32
    private let closesOnDeinit: Bool
    private var isClosed = false

    package init(fileDescriptor: Int32, closeOnDealloc: Bool = false) {
        self.fileDescriptor = fileDescriptor
        closesOnDeinit = closeOnDealloc
    }

    deinit { if closesOnDeinit, !isClosed { _ = systemClose(fileDescriptor) } }

    package static let standardInput = FileHandle(fileDescriptor: 0)
    package static let standardOutput = FileHandle(fileDescriptor: 1)
    package static let standardError = FileHandle(fileDescriptor: 2)

    package convenience init?(forReadingAtPath path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// An existing file, written from its start (Foundation's meaning: nil when there is no file).
    package convenience init?(forWritingAtPath path: String) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    package func write(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Up to `count` bytes; nil at the end of the file.
    package func read(upToCount count: Int) throws -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, count) }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return read == 0 ? nil : Data(buffer.prefix(read))
        }
    }

    package func readDataToEndOfFile() -> Data {
        var data = Data()
        while let chunk = try? read(upToCount: 65536) { data.append(chunk) }
        return data
    }

    @discardableResult
    package func seekToEnd() throws -> UInt64 {
        let offset = lseek(fileDescriptor, 0, SEEK_END)
        guard offset >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return UInt64(offset)
    }

    @discardableResult
    package func seekToEndOfFile() -> UInt64 { (try? seekToEnd()) ?? 0 }

    package func seek(toOffset offset: UInt64) throws {
        guard lseek(fileDescriptor, off_t(offset), SEEK_SET) >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    package func close() throws {
        guard !isClosed else { return }
        isClosed = true
        guard systemClose(fileDescriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
#endif
