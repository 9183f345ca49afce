// libFuzzer target for JWT/JWS parsing, linked by scripts/fuzz: compact JWS decoding (EntraCrypto), the
// claims reader, client-assertion validation and `x5c` certificates (IdentityPlatform), Graph's bearer
// token validation and the scenario engine's bearer-claims reading.
// Structure-aware: when the first byte is a multiple of 4, the rest is `header JSON \0 payload JSON`, signed
// here with the key registered on the app and trusted by Graph, so the fuzzer reaches the claim checks
// behind the signature (dates, audiences, issuers) as well as the parsing in front of it.
import EntraCrypto
import EntraHTTP
import Foundation
import Graph
@testable import IdentityPlatform
import Scenarios

let credential = try! SigningCredential.generate(commonName: "fuzz")
let fuzzApp = Application(clientID: "8c1f6b2e-4d3a-4f5e-9b7c-1a2d3e4f5a6b", displayName: "fuzz", isPublicClient: false,
                          certificates: [credential.certificate.pem])
let directory = Directory.embeddedDefault
let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func jwtFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let compact: String
    if let mode = bytes.first, mode % 4 == 0 {
        let rest = bytes.dropFirst()
        let split = rest.firstIndex(of: 0) ?? rest.endIndex
        let header = Array(rest[..<split]), payload = Array(rest[split...].dropFirst())
        // The signer refuses a header naming another algorithm: such a token goes out unsigned.
        compact = (try? JWS.signRS256(headerJSON: header, payloadJSON: payload, key: credential.privateKey))
            ?? Base64URL.encode(header) + "." + Base64URL.encode(payload) + "."
    } else {
        compact = String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    if let decoded = JWS.decode(compact) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        require(parts.count == 3 && Base64URL.decode(String(parts[1])) == decoded.payloadJSON)
        require(Base64URL.decode(Base64URL.encode(decoded.signature)) == decoded.signature)
        _ = (decoded.algorithm, decoded.keyID, decoded.x5t)
        _ = JWS.verifyRS256(decoded, key: credential.privateKey.publicKey)
    }
    if let jwt = ParsedJWT(compact) {
        _ = (jwt.string("iss"), jwt.date("exp"), jwt.date("nbf"), jwt.strings("scp"))
    }
    do {
        try ClientAssertionValidator.validate(compact, application: fuzzApp, audience: AssertionAudience(requestHost: "127.0.0.1", directory: directory), now: fixedNow)
    } catch {
        require(!error.message.isEmpty && error.code > 0)
    }
    _ = ClientAssertionValidator.embeddedCertificate(of: compact)?.sha1Thumbprint

    switch GraphTokenValidator().validate(authorization: "Bearer " + compact, keys: [credential], directory: directory, now: fixedNow) {
    case .success(let token): require(token.expiresAt.timeIntervalSince(fixedNow) >= -300)
    case .failure(let rejection): _ = "\(rejection)"
    }

    let request = HTTPRequest(method: "GET", target: "/v1.0/me", headers: ["Authorization": "Bearer " + compact])
    _ = RequestFacts.classify(request)
    return 0
}
