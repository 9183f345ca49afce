// TEMPORARY bench harness (not committed): mimics `fakeentra serve --port 0 --certs D --ready-file F`.
import EntraHTTP
import EntraServer
import Foundation

struct Health: HTTPResponder {
    func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        if request.rawPath == "/_fakeentra/health" { return HTTPResponse(status: .ok, text: "{\"status\":\"ok\"}", contentType: "application/json") }
        return HTTPResponse(status: .notFound, text: "no", contentType: "text/plain")
    }
}
let args = Array(CommandLine.arguments.dropFirst(2))
@MainActor func value(_ name: String) -> String? { args.firstIndex(of: name).map { args[$0 + 1] } }
let port = Int(value("--port") ?? "0")!
let certs = value("--certs")!
let ready = value("--ready-file")!
if !FileManager.default.fileExists(atPath: certs + "/server.key.pem") {
    try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    p.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                   "-keyout", certs + "/server.key.pem", "-out", certs + "/server.pem"]
    p.standardError = FileHandle.nullDevice
    try p.run(); p.waitUntilExit()
}
let server = try HTTPServer(configuration: ServerConfiguration(tlsPort: port, tls: TLSConfiguration(certificateChainPath: certs + "/server.pem", privateKeyPath: certs + "/server.key.pem")), responder: Health())
let bound = try server.start()
server.stopOnSignals()
try "{\"https\":\"\(bound[0])\",\"port\":\(bound[0].port)}\n".write(toFile: ready, atomically: true, encoding: .utf8)
server.stopOnSignals()
server.waitUntilStoppedBlocking()
