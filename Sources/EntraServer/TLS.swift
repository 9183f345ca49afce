private import COpenSSL
private import COpenSSLShims
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// Where the server certificate chain and its private key live (PEM files).
package struct TLSConfiguration: Sendable, Equatable {
    package var certificateChainPath: String
    package var privateKeyPath: String

    package init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }
}

/// An OpenSSL failure with the error queue read in the same call that failed.
package struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    package let operation: String
    package let reasons: [String]

    init(_ operation: String) {
        self.operation = operation
        self.reasons = TLSError.drainErrorQueue()
    }

    package var description: String {
        reasons.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reasons.joined(separator: "; "))"
    }

    /// Reads (and so clears) this thread's OpenSSL error queue.
    static func drainErrorQueue() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(nulTerminated: text))
        }
        return reasons
    }
}

/// An `SSL_CTX` configured for our server: TLS 1.2–1.3, ALPN http/1.1, certificate and key loaded.
final class TLSContext: @unchecked Sendable {
    // Immutable after init; OpenSSL allows SSL_new from several threads on a configured context.
    private let context: OpaquePointer

    init(_ configuration: TLSConfiguration) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new") }
        self.context = context
        guard TLSShims_configureServerContext(context) == 1 else { throw TLSError("configuring the TLS context") }
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificateChainPath) == 1 else {
            throw TLSError("loading certificate chain \(configuration.certificateChainPath)")
        }
        guard TLSShims_usePrivateKeyFile(context, configuration.privateKeyPath) == 1 else {
            throw TLSError("loading private key \(configuration.privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError("the private key does not match the certificate")
        }
    }

    deinit { SSL_CTX_free(context) }

    func makeSession(fd: Int32) -> TLSSession? {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {
            _ = TLSError.drainErrorQueue()
            return nil
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            _ = TLSError.drainErrorQueue()
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        return TLSSession(ssl)
    }
}

/// The outcome of one non-blocking transport call.
enum IOResult {
    case transferred(Int)
    case wantRead
    case wantWrite
    case closed
    case failed(String)
}

/// One connection's `SSL`. Confined to the event loop thread that owns the connection.
final class TLSSession {
    private let ssl: OpaquePointer
    /// Set by OpenSSL's socket BIO after each read of the socket: 1 when it came back short.
    private let socketDrained: UnsafeMutablePointer<Int32>

    /// `ssl` has its socket already (SSL_set_fd), so the watch on its reads is set.
    fileprivate init(_ ssl: OpaquePointer) {
        self.ssl = ssl
        socketDrained = .allocate(capacity: 1)
        socketDrained.initialize(to: 0)
        let watching = TLSShims_watchSocketReads(ssl, socketDrained)
        assert(watching == 1, "SSL_set_fd gives the session its socket BIO")
    }

    deinit {
        SSL_free(ssl)
        socketDrained.deallocate()
    }

    /// Advances the handshake; `.transferred(0)` when it is complete.
    func handshake() -> IOResult {
        let result = TLSShims_handshake(ssl)
        return result == 1 ? .transferred(0) : outcome(result, operation: "handshake")
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        socketDrained.pointee = 0
        let result = TLSShims_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return result > 0 ? .transferred(Int(result)) : outcome(result, operation: "read")
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> IOResult {
        let result = TLSShims_write(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return result > 0 ? .transferred(Int(result)) : outcome(result, operation: "write")
    }

    /// Sends close_notify once; the peer's answer is not awaited.
    func sendCloseNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        _ = TLSError.drainErrorQueue()
    }

    /// Input OpenSSL holds that the socket will not announce again: decrypted bytes, or records read
    /// ahead and not yet decrypted (which SSL_pending does not count).
    var hasBufferedInput: Bool { SSL_has_pending(ssl) == 1 }

    /// The last `read` read the socket and found nothing more in it (a short read): with nothing
    /// buffered either, the connection waits for the next readiness report rather than reading to EAGAIN.
    /// False when that `read` was served from OpenSSL's buffer without touching the socket.
    var lastReadDrainedSocket: Bool { socketDrained.pointee != 0 }

    private func outcome(_ result: Int32, operation: String) -> IOResult {
        // The classification and the error queue are read before anything else runs on this thread.
        let savedErrno = errno
        switch TLSShims_classify(ssl, result) {
        case TLSShims_Outcome_wantRead: return .wantRead
        case TLSShims_Outcome_wantWrite: return .wantWrite
        case TLSShims_Outcome_closed:
            _ = TLSError.drainErrorQueue()
            return .closed
        default:
            let reasons = TLSError.drainErrorQueue()
            if reasons.isEmpty {
                return savedErrno == 0 ? .closed : .failed("\(operation): errno \(savedErrno)")
            }
            return .failed("\(operation): \(reasons.joined(separator: "; "))")
        }
    }
}
