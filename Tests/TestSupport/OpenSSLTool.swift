import Foundation

/// The OpenSSL 3 command-line tool, found the way the build finds the library: `/usr/bin/openssl` is
/// LibreSSL on a Mac, whose `s_client` and `req` lack options the tests use.
package enum OpenSSLTool {
    /// `FAKEENTRA_OPENSSL`, else the first `openssl` that says it is OpenSSL 3 among PATH and Homebrew's
    /// `openssl@3` (Apple silicon and Intel prefixes).
    package static let path: String = {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["FAKEENTRA_OPENSSL"], !chosen.isEmpty { return chosen }
        let searchPath = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/openssl" }
        let candidates = searchPath + ["/opt/homebrew/opt/openssl@3/bin/openssl", "/usr/local/opt/openssl@3/bin/openssl", "/usr/bin/openssl"]
        return candidates.first(where: isOpenSSL3) ?? "/usr/bin/openssl"
    }()

    private static func isOpenSSL3(_ candidate: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: candidate)
        process.arguments = ["version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.hasPrefix("OpenSSL 3")
    }
}
