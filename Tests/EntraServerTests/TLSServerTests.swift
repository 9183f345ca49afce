import EntraHTTP
import EntraServer
import Foundation
import Testing
import TestSupport

@Suite struct TLSServerTests {
    let tls = TestCertificate.configuration

    func sClient(port: Int, _ extra: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(OpenSSLTool.path, ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"] + extra,
                input: "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    }

    @Test(arguments: [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")])
    func acceptsTLS12And13WithALPN(flag: String, version: String) async throws {
        try await withServer(tls: tls) { server in
            let result = try sClient(port: server.tlsPort, [flag, "-alpn", "h2,http/1.1", "-ign_eof"])
            #expect(result.stdout.contains("Protocol  : \(version)") || result.stdout.contains("New, \(version)"))
            #expect(result.stdout.contains("ALPN protocol: http/1.1"))
            #expect(result.stdout.contains("HTTP/1.1 200 OK"))
            #expect(result.stdout.contains("hello"))
        }
    }

    @Test func refusesTLS11() async throws {
        try await withServer(tls: tls) { server in
            // SECLEVEL=0 lets the client offer TLS 1.1, so the refusal comes from the server.
            let result = try sClient(port: server.tlsPort, ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
            #expect(result.status != 0)
            #expect(!result.stdout.contains("HTTP/1.1 200"))
            #expect(result.stderr.contains("protocol version") || result.stdout.contains("protocol version"))
        }
    }

    @Test func h2OnlyClientGetsNoALPNButAWorkingHandshake() async throws {
        try await withServer(tls: tls) { server in
            let result = try sClient(port: server.tlsPort, ["-alpn", "h2", "-ign_eof"])
            #expect(result.stdout.contains("No ALPN negotiated"))
            #expect(result.stdout.contains("HTTP/1.1 200 OK"))
        }
    }

    @Test func curlReusesTheTLSConnection() async throws {
        try await withServer(tls: tls) { server in
            let url = "https://localhost:\(server.tlsPort)/hello"
            let result = try run("/usr/bin/curl", ["-s", "--cacert", tls.certificateChainPath, "--resolve", "localhost:\(server.tlsPort):127.0.0.1",
                                                   "-w", " %{http_code} %{num_connects} %{http_version}\n", url, url])
            #expect(result.stdout == "hello 200 1 1.1\nhello 200 0 1.1\n")
        }
    }

    @Test func largeBodyRoundTripsThroughTLS() async throws {
        try await withServer(tls: tls) { server in
            let directory = FileManager.default.temporaryDirectory
            let file = directory.appendingPathComponent("entraserver-body-\(UUID().uuidString)")
            let body = (0..<900_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
            try Data(body).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let output = directory.appendingPathComponent("entraserver-echo-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            let result = try run("/usr/bin/curl", ["-sk", "--data-binary", "@\(file.path)", "-H", "Content-Type: application/octet-stream",
                                                   "-o", output.path, "-w", "%{http_code}", "https://127.0.0.1:\(server.tlsPort)/echo"])
            #expect(result.stdout == "200")
            #expect(try Data(contentsOf: output) == Data(body))
        }
    }

    @Test func plainHTTPOnTheTLSPortGets400AndClose() async throws {
        try await withServer(tls: tls) { server in
            let client = try RawClient(port: server.tlsPort)
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 400)
            #expect(response.text.contains("This port speaks HTTPS"))
            #expect(client.waitForClose())

            let curl = try run("/usr/bin/curl", ["-s", "-w", " %{http_code}", "http://127.0.0.1:\(server.tlsPort)/hello"])
            #expect(curl.stdout.hasSuffix(" 400"))
        }
    }

    @Test func plainListenerAlongsideTLS() async throws {
        try await withServer(tls: tls) { server in
            #expect(server.addresses.map(\.isTLS) == [true, false])
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /echo HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.headers["X-Secure"] == "no")
            let secure = try run("/usr/bin/curl", ["-sk", "-D", "-", "-o", "/dev/null", "https://127.0.0.1:\(server.tlsPort)/echo"])
            #expect(secure.stdout.lowercased().contains("x-secure: yes"))
        }
    }

    @Test func stalledHandshakeIsClosedAfterTheHandshakeTimeout() async throws {
        try await withServer(tls: tls, configure: { $0.handshakeTimeout = .milliseconds(200) }) { server in
            let client = try RawClient(port: server.tlsPort)
            try client.send([0x16, 0x03, 0x01])
            #expect(client.waitForClose())
        }
    }

    /// Pending handshakes hold OpenSSL's buffers, so there are at most `maxPendingHandshakes`; a client
    /// beyond waits, unread, and is served when a slot frees (here: the stalled ones time out).
    @Test func aHandshakeBeyondTheCapWaitsForASlotThenCompletes() async throws {
        try await withServer(tls: tls, configure: {
            $0.eventLoopCount = 1
            $0.maxPendingHandshakes = 8
            $0.handshakeTimeout = .seconds(1)
        }) { server in
            // Eight clients stall inside their first TLS record, taking every slot.
            let stalled = try (0..<8).map { _ in try RawClient(port: server.tlsPort) }
            for client in stalled { try client.send([0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x00]) }
            let url = "https://localhost:\(server.tlsPort)/hello"
            let result = try run("/usr/bin/curl", ["-s", "--max-time", "15", "--cacert", tls.certificateChainPath,
                                                   "--resolve", "localhost:\(server.tlsPort):127.0.0.1", url])
            #expect(result.stdout == "hello")
            for client in stalled { #expect(client.waitForClose()) }
        }
    }

    /// The server key is read through the RSA-only decoder first and the generic reader after it:
    /// both RSA PEM layouts and a key of another type (ECDSA) must serve, each checked by curl.
    @Test(arguments: [
        ("rsa-pkcs8", ["req", "-x509", "-newkey", "rsa:2048"], [String]()),
        ("rsa-traditional", ["req", "-x509", "-newkey", "rsa:2048"], ["rsa", "-traditional"]),
        ("ecdsa-p256", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], [String]()),
    ])
    func serverKeysOfEachLayoutServe(name: String, request: [String], conversion: [String]) async throws {
        try await withKeyDirectory(name) { directory in
            let certificate = directory + "/cert.pem", key = directory + "/key.pem"
            let made = try run(OpenSSLTool.path, request + ["-nodes", "-days", "2", "-subj", "/CN=localhost",
                               "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate])
            try #require(made.status == 0, "\(made.stderr)")
            if !conversion.isEmpty {
                let converted = try run(OpenSSLTool.path, conversion + ["-in", key, "-out", key + ".converted"])
                try #require(converted.status == 0, "\(converted.stderr)")
                try FileManager.default.removeItem(atPath: key)
                try FileManager.default.moveItem(atPath: key + ".converted", toPath: key)
                #expect(try String(contentsOfFile: key, encoding: .utf8).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
            }
            try await withServer(tls: TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key)) { server in
                let result = try run("/usr/bin/curl", ["-s", "--max-time", "15", "--cacert", certificate,
                                                       "--resolve", "localhost:\(server.tlsPort):127.0.0.1",
                                                       "https://localhost:\(server.tlsPort)/hello"])
                #expect(result.stdout == "hello")
            }
        }
    }

    /// An encrypted key, in either PEM layout, makes the server fail at init with OpenSSL's reason. (That
    /// it is never prompted for is not observable here: without a terminal the default prompt fails too.)
    @Test(arguments: [["pkey", "-aes256"], ["rsa", "-traditional", "-aes256"]])
    func encryptedServerKeyFailsAtInit(encryption: [String]) async throws {
        try await withKeyDirectory("encrypted-\(encryption[0])") { directory in
            let key = directory + "/key.pem"
            let made = try run(OpenSSLTool.path, encryption + ["-in", tls.privateKeyPath, "-passout", "pass:secret", "-out", key])
            try #require(made.status == 0, "\(made.stderr)")
            let encrypted = TLSConfiguration(certificateChainPath: tls.certificateChainPath, privateKeyPath: key)
            let error = #expect(throws: TLSError.self) {
                _ = try HTTPServer(configuration: ServerConfiguration(tlsPort: 0, tls: encrypted), responder: TestResponder())
            }
            #expect(error?.operation == "loading private key \(key)")
            #expect(error?.reasons.isEmpty == false)
        }
    }

    private func withKeyDirectory(_ name: String, _ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entraserver-keys-\(getpid())-\(name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test func badCertificatePathFailsAtInit() {
        let missing = TLSConfiguration(certificateChainPath: "/nonexistent/cert.pem", privateKeyPath: "/nonexistent/key.pem")
        #expect(throws: TLSError.self) {
            _ = try HTTPServer(configuration: ServerConfiguration(tlsPort: 0, tls: missing), responder: TestResponder())
        }
    }
}
