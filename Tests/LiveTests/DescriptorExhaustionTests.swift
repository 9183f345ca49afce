import Foundation
import Testing

#if os(Linux)

/// Out of file descriptors, the server waits instead of spinning: `accept` fails with EMFILE while clients
/// wait in the backlog, and a level-triggered listener would wake the loops for ever.
@Suite("Live: descriptor exhaustion")
struct DescriptorExhaustionTests {
    /// utime + stime of a process, in seconds (Linux's /proc; clock ticks are 100 a second).
    static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may contain spaces.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Double(fields[11]) ?? 0) / 100 + (Double(fields[12]) ?? 0) / 100
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") && FileManager.default.fileExists(atPath: "/proc/self/stat"),
                   "needs Linux's prlimit and /proc"))
    func theLoopsIdleWhileNoDescriptorIsFreeAndServiceResumes() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--quiet", "--header-timeout", "120", "--idle-timeout", "120"])
        defer { server.stop() }
        let port = try #require(server.plainPort)
        // The server raised its soft limit to the hard one at start; lowered now, below the connections to come.
        let lowered = try await run("/usr/bin/prlimit", ["--pid", String(server.process.pid), "--nofile=96:"])
        #expect(lowered.status == 0, "\(lowered.err)")
        var held: [TCPConnection]? = try await blocking { try (0..<160).map { _ in try TCPConnection(port: port) } }
        // The server has accepted what it could; the rest wait in the backlog.
        try await Task.sleep(for: .milliseconds(500))
        let before = try Self.cpuSeconds(of: server.process.pid)
        try await Task.sleep(for: .seconds(2))
        let spent = try Self.cpuSeconds(of: server.process.pid) - before
        #expect(spent < 0.3, "the server used \(spent) s of CPU in 2 s with no descriptor free")
        #expect(held?.count == 160)
        // Descriptors free as the clients leave (each closes its socket): waiting clients are accepted and
        // new ones served.
        held = nil
        let health = try await curl(server, ["/_fakeentra/health"], ["--max-time", "10"])
        #expect(health.status == 0 && health.out.contains("\"status\":\"ok\""), "\(health.err)")
    }
}
#endif
