import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A child process whose output is collected as it arrives, so tests can wait for a line, for the
/// pipes to close or for the exit, without sleeping. Every wait has an outer bound so a broken server
/// fails a test instead of hanging the suite.
final class ChildProcess: Sendable {
    struct Snapshot: Sendable {
        var stdout = Data()
        var stderr = Data()
        var stdoutClosed = false
        var stderrClosed = false
        /// Exit status, or 128 + signal when it died of a signal.
        var status: Int32?
        var diedOfSignal = false

        var out: String { String(decoding: stdout, as: UTF8.self) }
        var err: String { String(decoding: stderr, as: UTF8.self) }
        var hasExited: Bool { status != nil }
        var isFinished: Bool { status != nil && stdoutClosed && stderrClosed }
    }

    private struct Waiter {
        let predicate: @Sendable (Snapshot) -> Bool
        let continuation: CheckedContinuation<Snapshot, Never>
    }

    private struct State {
        var snapshot = Snapshot()
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    let executable: String
    let arguments: [String]
    private let state = Mutex(State())
    private let stdinHandle: FileHandle?
    private let process: Process

    /// Starts `executable` with `arguments`. `stdin`: bytes written then closed; nil with
    /// `keepStdinOpen` gives a pipe the test writes to (`write(_:)`, `closeStdin()`).
    init(_ executable: String, _ arguments: [String], stdin: Data? = nil, keepStdinOpen: Bool = false,
         environment: [String: String]? = nil, directory: String? = nil) throws {
        self.executable = executable
        self.arguments = arguments
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        if stdin != nil || keepStdinOpen {
            let inPipe = Pipe()
            process.standardInput = inPipe
            stdinHandle = inPipe.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            stdinHandle = nil
        }
        process.terminationHandler = { [weak self] finished in
            let signalled = finished.terminationReason == .uncaughtSignal
            let status = signalled ? 128 + finished.terminationStatus : finished.terminationStatus
            self?.update { $0.status = status; $0.diedOfSignal = signalled }
        }
        try process.run()
        drain(outPipe.fileHandleForReading, isStdout: true)
        drain(errPipe.fileHandleForReading, isStdout: false)
        if let stdin, let stdinHandle {
            Self.onThread {
                try? stdinHandle.write(contentsOf: stdin)
                try? stdinHandle.close()
            }
        }
    }

    var pid: Int32 { process.processIdentifier }
    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    func write(_ text: String) throws { try stdinHandle?.write(contentsOf: Data(text.utf8)) }
    func closeStdin() { try? stdinHandle?.close() }

    func signal(_ number: Int32) { PortableSocket.signal(process.processIdentifier, number) }

    /// Kills the child if it still runs (SIGKILL: cleanup must not depend on the child cooperating).
    func kill() {
        if !snapshot.hasExited { signal(SIGKILL) }
    }

    /// Returns the first snapshot satisfying `predicate`, or the latest one after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(20), until predicate: @escaping @Sendable (Snapshot) -> Bool) async -> Snapshot {
        let id: Int = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withCheckedContinuation { continuation in
            let ready: Snapshot? = state.withLock { state in
                if predicate(state.snapshot) { return state.snapshot }
                state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                return nil
            }
            if let ready { return continuation.resume(returning: ready) }
            // Registered first, so the bound can never fire before there is something to expire.
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    /// Waits for the exit and the end of both pipes; kills the child if that takes longer than `timeout`.
    func finish(timeout: Duration = .seconds(20)) async -> Snapshot {
        let result = await wait(timeout: timeout) { $0.isFinished }
        if !result.hasExited {
            kill()
            return await wait(timeout: .seconds(5)) { $0.isFinished }
        }
        return result
    }

    private func expire(_ id: Int) {
        let expired: (Waiter, Snapshot)? = state.withLock { state in
            state.waiters.removeValue(forKey: id).map { ($0, state.snapshot) }
        }
        if let (waiter, snapshot) = expired { waiter.continuation.resume(returning: snapshot) }
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        let satisfied: [(Waiter, Snapshot)] = state.withLock { state in
            change(&state.snapshot)
            let snapshot = state.snapshot
            let ready = state.waiters.filter { $0.value.predicate(snapshot) }
            for key in ready.keys { state.waiters.removeValue(forKey: key) }
            return ready.values.map { ($0, snapshot) }
        }
        for (waiter, snapshot) in satisfied { waiter.continuation.resume(returning: snapshot) }
    }

    /// Blocking reads on a thread of their own: never on Swift's cooperative pool (2 cores here).
    private func drain(_ handle: FileHandle, isStdout: Bool) {
        Self.onThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                update { isStdout ? $0.stdout.append(chunk) : $0.stderr.append(chunk) }
            }
            try? handle.close()
            update { isStdout ? ($0.stdoutClosed = true) : ($0.stderrClosed = true) }
        }
    }

    static func onThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.start()
    }
}

/// Runs a command to completion (bounded by `timeout`, after which it is killed) and returns its output.
@discardableResult
func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(20),
         environment: [String: String]? = nil, directory: String? = nil) async throws -> ChildProcess.Snapshot {
    let child = try ChildProcess(executable, arguments, stdin: stdin, environment: environment, directory: directory)
    return await child.finish(timeout: timeout)
}

/// Runs blocking work (sockets) on a dedicated thread and awaits its result.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        ChildProcess.onThread { continuation.resume(with: Result { try body() }) }
    }
}
