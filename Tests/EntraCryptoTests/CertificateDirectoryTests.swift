import Foundation
import Testing
@testable import EntraCrypto

/// Where the certificates live without `--certs`, and what two processes starting on one folder at once get.
@Suite struct CertificateDirectoryTests {
    @Test func theUsersDataFolderOnEachPlatformAndTheVariableFirst() {
        let home = ["HOME": "/home/ada"]
        #expect(CertificateDirectory.defaultPath(environment: home, platform: .linux) == "/home/ada/.local/share/fakeentra")
        #expect(CertificateDirectory.defaultPath(environment: home.merging(["XDG_DATA_HOME": "/data/ada"]) { $1 }, platform: .linux) == "/data/ada/fakeentra")
        #expect(CertificateDirectory.defaultPath(environment: home.merging(["XDG_DATA_HOME": "relative/data"]) { $1 }, platform: .linux)
                == "/home/ada/.local/share/fakeentra", "a relative XDG_DATA_HOME is ignored, as the XDG rule says")
        #expect(CertificateDirectory.defaultPath(environment: home, platform: .macOS) == "/home/ada/Library/Application Support/FakeEntra")
        for platform in [CertificateDirectory.Platform.linux, .macOS] {
            #expect(CertificateDirectory.defaultPath(environment: home.merging(["FAKEENTRA_CERTS": "/srv/certs/"]) { $1 }, platform: platform) == "/srv/certs")
        }
        #expect(CertificateDirectory.fixturesPath(environment: home.merging(["FAKEENTRA_CERTS": "/srv/certs"]) { $1 }) == "/srv/certs/fixtures/default")
    }

    @Test func relativePathsAreMadeAbsolute() {
        let here = FileManager.default.currentDirectoryPath
        #expect(CertificateDirectory.absolute("./Certs") == (here as NSString).appendingPathComponent("Certs"))
        #expect(CertificateDirectory.absolute("/a/b/../c") == "/a/c")
        #expect(CertificateDirectory.absolute("~/x") == (NSHomeDirectory() as NSString).appendingPathComponent("x"))
    }

    /// Without the folder's lock, both would generate a CA and one server certificate would be signed by
    /// the CA the other one replaced.
    @Test func serversStartingTogetherOnOneFolderShareOneCA() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let results = try await withThrowingTaskGroup(of: CertificatePaths.self) { group in
                for _ in 0..<4 { group.addTask { try LocalCertificateAuthority.ensure(directory: directory, hostnames: []) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter(\.caRegenerated).count == 1, "one CA generated, three reused")
            let verified = try openssl(["verify", "-CAfile", "ca.pem", "-purpose", "sslserver", "server.pem"], in: directory)
            #expect(verified.status == 0, "\(verified.errorOutput)")
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<4 { group.addTask { try SigningCredential.loadOrCreate(directory: directory).keyID } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1, "one token-signing key")
        }
    }
}

func withTemporaryDirectoryAsync<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "entracrypto-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
