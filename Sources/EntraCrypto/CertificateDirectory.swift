import FoundationGaps
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where FakeEntra keeps its local CA, server certificate and token-signing key when no `--certs` is
/// given: one folder per user, so every command finds it from any working directory, and a test
/// fixture started a thousand times generates its keys once.
package enum CertificateDirectory {
    package enum Platform: Sendable { case linux, macOS }

    #if os(macOS)
    package static let currentPlatform = Platform.macOS
    #else
    package static let currentPlatform = Platform.linux
    #endif

    /// `FAKEENTRA_CERTS` when set; else `$XDG_DATA_HOME/fakeentra` (`~/.local/share/fakeentra`) on Linux,
    /// `~/Library/Application Support/FakeEntra` on macOS. Always absolute.
    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment,
                                    platform: Platform = currentPlatform) -> String {
        if let explicit = environment["FAKEENTRA_CERTS"], !explicit.isEmpty { return absolute(explicit) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        switch platform {
        case .macOS:
            return home + "/Library/Application Support/FakeEntra"
        case .linux:
            // The XDG rule: a relative XDG_DATA_HOME is invalid and ignored.
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/fakeentra" }
            return home + "/.local/share/fakeentra"
        }
    }

    /// Test fixtures' sets, one per `key` (the host names they serve): apart from the folder a person
    /// trusts, so a fixture never makes the user's CA be regenerated, and sets with other names never
    /// replace each other's CA while both are in use.
    package static func fixturesPath(key: String = "default", environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        defaultPath(environment: environment) + "/fixtures/" + key
    }

    /// `path` made absolute against the working directory, so every path FakeEntra prints can be pasted anywhere.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return (path).standardizingPath }
        let expanded = (path).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded).standardizingPath }
        return FileManager.default.currentDirectoryPath.appendingPathComponent(path).standardizingPath
    }

    /// Runs `body` holding an exclusive lock on `directory` (`.lock` in it), so two processes starting on
    /// one folder at once do not both generate a CA and sign their certificates with different ones.
    /// A folder nobody may write (a read-only mount of a CA made elsewhere) needs no lock: it is read only.
    package static func withExclusiveLock<T>(_ directory: String, _ body: () throws -> T) throws -> T {
        try SecureFile.createDirectory(directory)
        let path = (directory).appendingPathComponent(".lock")
        var descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == EACCES || errno == EROFS {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 { return try body() }
        }
        guard descriptor >= 0 else { throw CryptoError(.fileSystem, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CryptoError(.fileSystem, "cannot lock \(path): \(String(cString: strerror(errno)))") }
        }
        return try body()
    }
}
