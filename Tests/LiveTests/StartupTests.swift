import Foundation
import Testing
import TestSupport

@Suite("Start-up: base URL, ready file, health")
struct StartupTests {
    @Test func printsTheBaseURLOnItsOwnFirstLineAndWritesTheReadyFile() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let firstLine = try #require(server.stdout.split(separator: "\n", omittingEmptySubsequences: false).first)
        #expect(firstLine == "https://127.0.0.1:\(server.port)")
        #expect(server.port > 0 && server.port != 8443)
        // Written before the banner; waited for anyway, so the test does not depend on that order.
        #expect(try await blocking { waitForFile(server.readyFile) })
        let readyText = try String(contentsOfFile: server.readyFile, encoding: .utf8)
        #expect(readyText == server.url + "\n")
    }

    @Test func theReadyFileAloneIsEnoughToKnowTheServerAcceptsConnections() async throws {
        let certs = try await CertificateTemplate.copy()
        let readyFile = try temporaryDirectory() + "/ready"
        let process = try ChildProcess(try fakeentraBinary(), ["--port", "0", "--certs", certs, "--ready-file", readyFile, "--quiet"])
        defer { process.kill() }
        #expect(try await blocking { waitForFile(readyFile) })
        let url = try String(contentsOfFile: readyFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        let result = try await run("/usr/bin/curl", ["-sS", "--cacert", certs + "/ca.pem", url + "/_fakeentra/health"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("\"status\":\"ok\""))
    }

    @Test func healthAnswersJSONWithStatusVersionAndUptime() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curl(server, ["/_fakeentra/health"], ["-i"])
        #expect(result.status == 0, "\(result.err)")
        #expect(statusCodes(in: result.out) == [200])
        #expect(result.out.lowercased().contains("content-type: application/json"))
        let body = try #require(result.out.components(separatedBy: "\r\n\r\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(json["status"] as? String == "ok")
        let version = try #require(json["version"] as? String)
        #expect(version.split(separator: ".").count == 3)
        let uptime = try #require(json["uptimeSeconds"] as? Double)
        #expect(uptime >= 0 && uptime < 600)
    }

    @Test func uptimeGrowsBetweenTwoHealthRequests() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        func uptime() async throws -> Double {
            let result = try await curl(server, ["/_fakeentra/health"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
            return try #require(json["uptimeSeconds"] as? Double)
        }
        let first = try await uptime()
        let second = try await uptime()
        // Millisecond resolution and a whole curl start in between: strictly greater.
        #expect(second > first)
    }

    @Test func readyFileHoldsOnlyTheURLAndIsWrittenAtomically() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        #expect(try await blocking { waitForFile(server.readyFile) })
        let contents = try Data(contentsOf: URL(fileURLWithPath: server.readyFile))
        #expect(String(decoding: contents, as: UTF8.self).split(separator: "\n") == [Substring(server.url)])
        // No temporary file left beside it (it is written atomically through a rename).
        let siblings = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: server.readyFile).deletingLastPathComponent().path)
        #expect(siblings == ["ready"])
    }

    @Test func controlPathsThatDoNotExistAnswerJSON404AndOthersText404() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let control = try await curl(server, ["/_fakeentra/nothing-here"], ["-i"])
        #expect(statusCodes(in: control.out) == [404])
        #expect(control.out.contains("\"error\":{\"code\":\"not_found\""))
        let other = try await curl(server, ["/definitely/not/a/route"], ["-i"])
        #expect(statusCodes(in: other.out) == [404])
        #expect(other.out.lowercased().contains("content-type: text/plain"))
    }

    @Test func healthRefusesOtherMethodsWith405() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curl(server, ["/_fakeentra/health"], ["-i", "-X", "DELETE"])
        #expect(statusCodes(in: result.out) == [405])
        #expect(result.out.contains("Allow: GET, HEAD"))
    }

    @Test func serveIsTheDefaultSubcommand() async throws {
        let certs = try await CertificateTemplate.copy()
        let process = try ChildProcess(try fakeentraBinary(), ["--port", "0", "--certs", certs])
        defer { process.kill() }
        let started = await process.wait { $0.out.contains("\n") || $0.hasExited }
        #expect(started.out.hasPrefix("https://127.0.0.1:"), "\(started.out)\(started.err)")
    }

    /// Without --certs, one folder per user whatever the working directory (FAKEENTRA_CERTS first), and
    /// every path printed absolute; a relative --certs is printed absolute too.
    @Test func certificatesGoToTheUsersFolderByDefault() async throws {
        let home = try temporaryDirectory(), elsewhere = try temporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_DATA_HOME"] = nil
        environment["FAKEENTRA_CERTS"] = nil
        let result = try await run(try fakeentraBinary(), ["certs"], environment: environment, directory: elsewhere)
        #expect(result.status == 0, "\(result.err)")
        let folder = home + "/.local/share/fakeentra"
        #expect(FileManager.default.fileExists(atPath: folder + "/ca.pem") && FileManager.default.fileExists(atPath: folder + "/.gitignore"))
        #expect(result.out.contains("CA certificate:     \(folder)/ca.pem"), "\(result.out)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/Certs"))
        let printed = try await run(try fakeentraBinary(), ["certs", "--print-directory"], environment: environment, directory: elsewhere)
        #expect(printed.out == folder + "\n")
        environment["FAKEENTRA_CERTS"] = home + "/chosen"
        #expect(try await run(try fakeentraBinary(), ["certs", "--print-directory"], environment: environment).out == home + "/chosen\n")
        let relative = try await run(try fakeentraBinary(), ["certs", "--certs", "mine"], environment: environment, directory: elsewhere)
        #expect(relative.out.contains("CA certificate:     \(elsewhere)/mine/ca.pem"), "\(relative.out)")
    }

    @Test func ipv6LoopbackIsServedAndPrintedInBrackets() async throws {
        let server = try await LiveServer.start(["--host", "::1"])
        defer { server.stop() }
        #expect(server.url == "https://[::1]:\(server.port)")
        let result = try await run("/usr/bin/curl", ["-sS", "--cacert", server.caPath, server.url + "/_fakeentra/health"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("\"status\":\"ok\""))
    }

    @Test func aWildcardListenerPrintsALoopbackURL() async throws {
        let server = try await LiveServer.start(["--host", "0.0.0.0", "--control-secret", "test-secret"])
        defer { server.stop() }
        #expect(server.url == "https://127.0.0.1:\(server.port)")
        #expect(try await curl(server, ["/_fakeentra/health"]).status == 0)
    }
}
