private import COpenSSL

/// An EntraCrypto failure: what we were doing, plus what OpenSSL said about it.
///
/// `reason` is captured from OpenSSL's per-thread error queue in the same synchronous call that
/// failed, so it never describes somebody else's failure. Errors are equal when their codes are.
package struct CryptoError: Error, CustomStringConvertible, Equatable, Sendable {
    package enum Code: String, Sendable {
        case invalidPEM
        case invalidKey
        case unsupportedKey
        case keyGeneration
        case signing
        case encryption
        case invalidCertificate
        case certificateBuild
        case invalidName
        case invalidJSON
        case fileSystem
    }

    package let code: Code
    package let reason: String
    package let file: String
    package let line: Int

    package init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    package var description: String { "CryptoError.\(code.rawValue): \(reason) (\(file):\(line))" }

    package static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }

    /// Builds an error from `context` and drains OpenSSL's error queue into its reason.
    static func openSSL(_ code: Code, _ context: String, file: String = #fileID, line: Int = #line) -> CryptoError {
        let details = OpenSSLErrorQueue.drain()
        let reason = details.isEmpty ? context : "\(context): \(details.joined(separator: "; "))"
        return CryptoError(code, reason, file: file, line: line)
    }
}

/// OpenSSL's error queue is per thread; every public entry point clears it first and reads it at
/// the failure site, before returning, so no `await` can move us to another thread in between.
enum OpenSSLErrorQueue {
    static func clear() { ERR_clear_error() }

    static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }
}
