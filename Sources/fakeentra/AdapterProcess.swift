#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationGaps

/// One adapter process: `/bin/sh -c CMD` in its own process group (so whatever it starts in the
/// background, `fakeentra browse` included, dies with it), JSON lines over pipes, stderr to a file.
final class AdapterProcess {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private let stderrPath: String
    private var buffer: [UInt8] = []
    private var closed = false

    struct SpawnFailure: Error, CustomStringConvertible {
        var description: String
    }

    init(command: String, environment: [String: String], stderrPath: String) throws {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw SpawnFailure(description: "pipe: \(String(cString: strerror(errno)))") }
        let errFD = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard errFD >= 0 else { throw SpawnFailure(description: "cannot write \(stderrPath): \(String(cString: strerror(errno)))") }
        defer {
            close(toChild[0])
            close(fromChild[1])
            close(errFD)
        }
        // The suite's ends of the pipes must not leak into the child.
        _ = fcntl(toChild[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fromChild[0], F_SETFD, FD_CLOEXEC)

        let options = SpawnOptions()
        posix_spawn_file_actions_adddup2(&options.actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&options.actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&options.actions, errFD, 2)
        posix_spawnattr_setflags(&options.attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&options.attributes, 0)

        // The adapter inherits the suite's working directory.
        let arguments = ["/bin/sh", "-c", command]
        let environmentLines = environment.map { "\($0.key)=\($0.value)" }
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environmentLines.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, "/bin/sh", &options.actions, &options.attributes, &cArguments, &cEnvironment)
        guard status == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw SpawnFailure(description: "cannot start /bin/sh: \(String(cString: strerror(status)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
        self.stderrPath = stderrPath
    }

    /// Writes one line; false when the adapter no longer reads.
    func send(_ line: String) -> Bool {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(input, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    enum LineResult {
        case line(String)
        case deadline
        case closed
    }

    /// The next line from stdout, or why there is none by `deadline`.
    func readLine(before deadline: Date) -> LineResult {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                return .line(line)
            }
            if closed { return .closed }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .deadline }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(output, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                closed = true
                continue
            }
            buffer.append(contentsOf: chunk[..<count])
            // A line longer than 1 MiB is not a protocol reply: fail the step rather than grow without bound.
            if buffer.count > 1 << 20, !buffer.contains(UInt8(ascii: "\n")) {
                buffer.append(UInt8(ascii: "\n"))
            }
        }
    }

    /// Closes stdin (the adapter's cue to exit), then ends the whole process group.
    func terminate() {
        close(input)
        let deadline = Date().addingTimeInterval(0.5)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                kill(-pid, SIGKILL)
                close(output)
                return
            }
            usleep(20_000)
        }
        kill(-pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        close(output)
    }

    /// The last `limit` bytes the adapter wrote to stderr.
    func stderrTail(limit: Int = 64 * 1024) -> String {
        guard let handle = FileHandle(forReadingAtPath: stderrPath) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > UInt64(limit) ? size - UInt64(limit) : 0)
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }
}

enum Shell {
    /// One argument for `/bin/sh`, single-quoted.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
