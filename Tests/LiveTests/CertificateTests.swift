import Foundation
import Testing
import TestSupport

private func contents(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

private func openssl(_ arguments: [String]) async throws -> ChildProcess.Snapshot {
    try await run(OpenSSLTool.path, arguments)
}

/// curl to `https://<name>:<port>/_fakeentra/health`, with `name` resolved to 127.0.0.1 when it is not local.
private func curlHealth(_ server: LiveServer, as name: String, caPath: String? = nil) async throws -> ChildProcess.Snapshot {
    var arguments = ["-sS", "--cacert", caPath ?? server.caPath]
    if name != "localhost", name != "127.0.0.1" { arguments += ["--resolve", "\(name):\(server.port):127.0.0.1"] }
    return try await run("/usr/bin/curl", arguments + ["https://\(name):\(server.port)/_fakeentra/health"])
}

/// Starts and stops a server on `certs` so the directory holds what that start produced.
private func startAndStop(certs: String, _ arguments: [String] = []) async throws -> ChildProcess.Snapshot {
    let server = try await LiveServer.start(certs: certs, arguments)
    defer { server.stop() }
    return await server.terminate()
}

@Suite("Local CA and server certificate")
struct CertificateTests {
    @Test func secondStartReusesTheCAAndTheServerCertificate() async throws {
        let certs = try temporaryDirectory() + "/Certs"
        let first = try await startAndStop(certs: certs)
        #expect(first.err.contains("created a new local CA"))
        let ca = try contents(certs + "/ca.pem"), caKey = try contents(certs + "/ca.key.pem")
        let serverCertificate = try contents(certs + "/server.pem")

        let second = try await startAndStop(certs: certs)
        #expect(!second.err.contains("created a new local CA"))
        #expect(try contents(certs + "/ca.pem") == ca)
        #expect(try contents(certs + "/ca.key.pem") == caKey)
        #expect(try contents(certs + "/server.pem") == serverCertificate)
    }

    @Test func privateKeysAreReadableByTheOwnerOnly() async throws {
        let server = try await LiveServer.start(freshKeys: true)
        defer { server.stop() }
        for name in ["ca.key.pem", "server.key.pem", "token-signing.key.pem"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: server.certs + "/" + name)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            #expect(mode & 0o777 == 0o600, "\(name) has mode \(String(mode, radix: 8))")
        }
        // Everything in the directory is ignored by git, wherever the directory lives.
        let ignore = try String(contentsOfFile: server.certs + "/.gitignore", encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*"))
    }

    @Test func serverCertificateVerifiesAgainstTheCAWithOpenSSL() async throws {
        let server = try await LiveServer.start(["--hostname", "login.microsoftonline.com"])
        defer { server.stop() }
        let verify = try await openssl(["verify", "-CAfile", server.caPath, "-purpose", "sslserver", server.certs + "/server.pem"])
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        #expect(verify.out.contains(": OK"))
        let names = try await openssl(["x509", "-noout", "-ext", "subjectAltName", "-in", server.certs + "/server.pem"])
        for name in ["DNS:localhost", "DNS:login.microsoftonline.com", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1"] {
            #expect(names.out.contains(name), "\(names.out)")
        }
    }

    @Test func theCAIsNameConstrainedSoItCannotVouchForOtherSites() async throws {
        let server = try await LiveServer.start(["--hostname", "login.microsoftonline.com"])
        defer { server.stop() }
        let text = try await openssl(["x509", "-noout", "-text", "-in", server.caPath])
        #expect(text.out.contains("X509v3 Name Constraints: critical"))
        #expect(text.out.contains("DNS:login.microsoftonline.com"))

        // Someone holding the CA key signs a certificate for another site: verification must refuse it.
        let work = try temporaryDirectory()
        let request = try await openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", work + "/evil.key",
                                         "-subj", "/CN=www.example.com", "-addext", "subjectAltName=DNS:www.example.com", "-out", work + "/evil.csr"])
        try #require(request.status == 0, "\(request.err)")
        let signed = try await openssl(["x509", "-req", "-in", work + "/evil.csr", "-CA", server.caPath, "-CAkey", server.certs + "/ca.key.pem",
                                        "-CAcreateserial", "-copy_extensions", "copy", "-days", "1", "-out", work + "/evil.pem"])
        try #require(signed.status == 0, "\(signed.err)")
        let verify = try await openssl(["verify", "-CAfile", server.caPath, work + "/evil.pem"])
        #expect(verify.status != 0)
        #expect((verify.out + verify.err).contains("permitted subtree violation"))
    }

    @Test func curlTrustsTheServerAsLocalhostAndAs127001() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        for name in ["localhost", "127.0.0.1"] {
            let result = try await curlHealth(server, as: name)
            #expect(result.status == 0, "\(name): \(result.err)")
            #expect(result.out.contains("\"status\":\"ok\""))
        }
        // The system store does not know our CA: without --cacert curl must refuse (exit 60).
        let untrusted = try await run("/usr/bin/curl", ["-sS", server.url + "/_fakeentra/health"])
        #expect(untrusted.status == 60, "\(untrusted.err)")
    }

    @Test func extraHostnameIsServedWithAHostsFileStyleResolve() async throws {
        let server = try await LiveServer.start(["--hostname", "login.microsoftonline.com", "--hostname", "*.b2clogin.com"])
        defer { server.stop() }
        for name in ["login.microsoftonline.com", "contoso.b2clogin.com"] {
            let result = try await curlHealth(server, as: name)
            #expect(result.status == 0, "\(name): \(result.err)")
        }
        // A name the certificate does not carry fails host verification (curl exit 60).
        let other = try await curlHealth(server, as: "graph.microsoft.com")
        #expect(other.status == 60, "\(other.err)")
    }

    /// A Host the server does not serve never becomes the issuer; served names,
    /// wildcards included, still do.
    @Test func anUnservedHostDoesNotBecomeTheIssuer() async throws {
        let server = try await LiveServer.start(["--hostname", "*.b2clogin.com"])
        defer { server.stop() }
        func issuer(_ arguments: [String], _ url: String) async throws -> String {
            let result = try await run("/usr/bin/curl", ["-sS", "--cacert", server.caPath] + arguments + [url])
            #expect(result.status == 0, "\(result.err)")
            let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
            return object?["issuer"] as? String ?? ""
        }
        let v2 = "https://127.0.0.1:\(server.port)/common/v2.0/.well-known/openid-configuration"
        // An unserved name is refused outright (421, DNS rebinding), so it can become no issuer.
        let rebound = try await run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", server.caPath, "-H", "Host: evil.example:\(server.port)", v2])
        #expect(rebound.out == "421")
        #expect(try await issuer([], v2).hasPrefix("https://127.0.0.1:\(server.port)/"))
        let b2c = "https://contoso.b2clogin.com:\(server.port)/fabrikamb2c.onmicrosoft.com/B2C_1_susi/v2.0/.well-known/openid-configuration"
        #expect(try await issuer(["--resolve", "contoso.b2clogin.com:\(server.port):127.0.0.1"], b2c).hasPrefix("https://contoso.b2clogin.com:\(server.port)/"))
    }

    @Test func withoutTheHostnameTheMicrosoftNameIsRefused() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curlHealth(server, as: "login.microsoftonline.com")
        #expect(result.status == 60, "\(result.err)")
    }

    @Test func aNewHostnameInsideTheConstraintsReissuesOnlyTheServerCertificate() async throws {
        let certs = try temporaryDirectory()
        _ = try await startAndStop(certs: certs, ["--hostname", "login.microsoftonline.com"])
        let ca = try contents(certs + "/ca.pem"), serverCertificate = try contents(certs + "/server.pem")

        // A subdomain of a constrained name stays within the CA's permitted subtree.
        let server = try await LiveServer.start(certs: certs, ["--hostname", "login.microsoftonline.com", "--hostname", "eu.login.microsoftonline.com"])
        defer { server.stop() }
        #expect(!server.stderr.contains("created a new local CA"))
        #expect(try contents(certs + "/ca.pem") == ca)
        #expect(try contents(certs + "/server.pem") != serverCertificate)
        let result = try await curlHealth(server, as: "eu.login.microsoftonline.com")
        #expect(result.status == 0, "\(result.err)")
    }

    @Test func droppingAHostnameReissuesTheServerCertificateAndKeepsTheCA() async throws {
        let certs = try temporaryDirectory()
        _ = try await startAndStop(certs: certs, ["--hostname", "login.microsoftonline.com", "--hostname", "graph.microsoft.com"])
        let ca = try contents(certs + "/ca.pem"), serverCertificate = try contents(certs + "/server.pem")

        let server = try await LiveServer.start(certs: certs, ["--hostname", "login.microsoftonline.com"])
        defer { server.stop() }
        #expect(try contents(certs + "/ca.pem") == ca)
        #expect(try contents(certs + "/server.pem") != serverCertificate)
        #expect(try await curlHealth(server, as: "graph.microsoft.com").status == 60)
        #expect(try await curlHealth(server, as: "login.microsoftonline.com").status == 0)
    }

    @Test func aNameOutsideTheConstraintsRegeneratesTheCA() async throws {
        let certs = try temporaryDirectory()
        _ = try await startAndStop(certs: certs)
        let oldCA = try temporaryDirectory() + "/old-ca.pem"
        try FileManager.default.copyItem(atPath: certs + "/ca.pem", toPath: oldCA)

        let server = try await LiveServer.start(certs: certs, ["--hostname", "graph.microsoft.com"])
        defer { server.stop() }
        // stderr is read on its own, so it may trail the ready line on stdout.
        await server.waitForLog("created a new local CA")
        #expect(server.stderr.contains("created a new local CA"))
        #expect(try contents(certs + "/ca.pem") != contents(oldCA))
        #expect(try await curlHealth(server, as: "graph.microsoft.com").status == 0)
        // Clients that trusted the old CA no longer trust the server: the message above is needed.
        #expect(try await curlHealth(server, as: "localhost", caPath: oldCA).status == 60)
    }

    @Test func certsCommandCreatesTheFilesAndPrintsTrustInstructions() async throws {
        let certs = try temporaryDirectory() + "/dir with space"
        let result = try await run(try fakeentraBinary(), ["certs", "--certs", certs, "--hostname", "login.microsoftonline.com"])
        #expect(result.status == 0, "\(result.err)")
        let ca = "'\(certs)/ca.pem'"
        for expected in [
            "update-ca-certificates",                           // Debian / Ubuntu
            "security add-trusted-cert",                        // macOS
            "xcrun simctl keychain booted add-root-cert \(ca)", // iOS simulator
            "REQUESTS_CA_BUNDLE=\(ca)",                         // Python
            "NODE_EXTRA_CA_CERTS=\(ca)",                        // Node
            "login.microsoftonline.com",
            "A new CA was created",
        ] {
            #expect(result.out.contains(expected), "missing \(expected)")
        }
        #expect(FileManager.default.fileExists(atPath: certs + "/ca.pem"))
        let verify = try await openssl(["verify", "-CAfile", certs + "/ca.pem", certs + "/server.pem"])
        #expect(verify.status == 0)

        let again = try await run(try fakeentraBinary(), ["certs", "--certs", certs, "--hostname", "login.microsoftonline.com"])
        #expect(again.status == 0)
        #expect(!again.out.contains("A new CA was created"))
    }

    @Test func certsCommandPrintsTheFingerprintOpenSSLComputes() async throws {
        let certs = try temporaryDirectory()
        let result = try await run(try fakeentraBinary(), ["certs", "--certs", certs])
        let fingerprint = try await openssl(["x509", "-noout", "-fingerprint", "-sha256", "-in", certs + "/ca.pem"])
        let value = try #require(fingerprint.out.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(result.out.contains("SHA-256 fingerprint: \(value)"))
    }
}
