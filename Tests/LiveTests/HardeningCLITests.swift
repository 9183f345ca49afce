import Foundation
import Testing

/// Command-line input the server cannot work with is a usage error (exit 64).
@Suite("Hardening: command line")
struct HardeningCLITests {
    @Test func anEmptyControlSecretIsAUsageError() async throws {
        for secret in ["", "   ", "line\nbreak"] {
            let result = try await run(try fakeentraBinary(), ["serve", "--port", "0", "--control-secret", secret], timeout: .seconds(20))
            #expect(result.hasExited && !result.diedOfSignal)
            #expect(result.status == 64, "\(secret.debugDescription): \(result.status) \(result.err)")
            #expect(result.err.contains("--control-secret"), "\(result.err)")
        }
    }
}
