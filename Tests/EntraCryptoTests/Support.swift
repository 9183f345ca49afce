import Foundation
import Testing
@testable import EntraCrypto

/// One RSA-2048 key shared by tests that only need "some key" (generation costs ~100 ms).
let sharedKey: RSAPrivateKey = {
    do { return try RSAPrivateKey.generate() } catch { fatalError("key generation failed: \(error)") }
}()

/// A fresh directory under the system temp dir, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = NSTemporaryDirectory() + "entracrypto-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

struct CommandResult {
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs the `openssl` command-line tool: an independent implementation to check our output against.
@discardableResult
func openssl(_ arguments: [String], in directory: String, input: [UInt8]? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe(), errors = Pipe(), standardInput = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = standardInput
    try process.run()
    if let input { standardInput.fileHandleForWriting.write(Data(input)) }
    try standardInput.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a chatty command cannot block on a full pipe.
    let errorData = Data.concurrentRead(errors.fileHandleForReading)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         output: String(decoding: outputData, as: UTF8.self),
                         errorOutput: String(decoding: errorData(), as: UTF8.self))
}

extension Data {
    /// Starts draining `handle` on another thread; the returned closure waits for and returns the bytes.
    static func concurrentRead(_ handle: FileHandle) -> () -> Data {
        let box = ResultBox()
        let thread = Thread { box.set(handle.readDataToEndOfFile()) }
        thread.start()
        return { box.wait() }
    }
}

final class ResultBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Data?
    func set(_ data: Data) { condition.lock(); value = data; condition.signal(); condition.unlock() }
    func wait() -> Data {
        condition.lock(); defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}

func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
