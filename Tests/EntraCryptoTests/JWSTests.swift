import Foundation
import Testing
@testable import EntraCrypto

@Suite struct JWSTests {
    let credential: SigningCredential = {
        do { return try SigningCredential.issue(for: sharedKey, commonName: "test", validFor: 86400, now: Date()) }
        catch { fatalError("\(error)") }
    }()

    @Test func signJWTWritesEntraStyleHeader() throws {
        let token = try JWS.signJWT(payloadJSON: Array(#"{"sub":"x"}"#.utf8), credential: credential)
        let decoded = try #require(JWS.decode(token))
        #expect(String(decoding: decoded.headerJSON, as: UTF8.self)
                == #"{"typ":"JWT","alg":"RS256","x5t":"\#(credential.keyID)","kid":"\#(credential.keyID)"}"#)
        #expect(decoded.algorithm == "RS256")
        #expect(decoded.keyID == credential.keyID)
        #expect(decoded.x5t == credential.keyID)
        #expect(String(decoding: decoded.payloadJSON, as: UTF8.self) == #"{"sub":"x"}"#)
        #expect(JWS.verifyRS256(decoded, key: credential.privateKey.publicKey))
    }

    /// The token written in place is the header, the payload and the signature of the two, for every
    /// payload length modulo 3 (RS256 signatures are deterministic, so the signature is computed again here).
    @Test func signJWTIsTheSignatureOfWhatPrecedesIt() throws {
        for length in 0..<7 {
            let payload = Array(#"{"n":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: length) + Array(#""}"#.utf8)
            let token = try JWS.signJWT(payloadJSON: payload, credential: credential)
            let signingInput = String(decoding: credential.jwtHeaderSegment, as: UTF8.self) + "." + Base64URL.encode(payload)
            let signature = try credential.privateKey.signSHA256(Array(signingInput.utf8))
            #expect(token == signingInput + "." + Base64URL.encode(signature))
            #expect(signature.count == credential.privateKey.maximumSignatureSize)
            let withDigest = try JWS.signJWTWithDigest(payloadJSON: payload, credential: credential)
            #expect(withDigest.sha256 == Digest.sha256(Array(token.utf8)), "the digest carried on is the whole token's")
        }
    }

    @Test func addsAlgorithmWhenMissing() throws {
        let token = try JWS.signRS256(headerJSON: Array(#"{"typ":"JWT"}"#.utf8), payloadJSON: Array("{}".utf8), key: sharedKey)
        let decoded = try #require(JWS.decode(token))
        #expect(String(decoding: decoded.headerJSON, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT"}"#)
        let empty = try JWS.signRS256(headerJSON: Array("{}".utf8), payloadJSON: Array("{}".utf8), key: sharedKey)
        #expect(String(decoding: try #require(JWS.decode(empty)).headerJSON, as: UTF8.self) == #"{"alg":"RS256"}"#)
    }

    @Test(arguments: [#"{"alg":"HS256"}"#, #"{"alg":"none"}"#, #"{"alg":7}"#, "[]", "not json", ""])
    func refusesHeadersThatAreNotRS256Objects(header: String) {
        #expect(throws: CryptoError.self) {
            try JWS.signRS256(headerJSON: Array(header.utf8), payloadJSON: Array("{}".utf8), key: sharedKey)
        }
    }

    /// A repeated name is refused for what it is, not as something other than an object.
    @Test func aHeaderRepeatingANameIsRefusedByName() throws {
        let error = try #require(throws: CryptoError.self) {
            try JWS.signRS256(headerJSON: Array(#"{"typ":"JWT","typ":"at+jwt"}"#.utf8), payloadJSON: Array("{}".utf8), key: sharedKey)
        }
        #expect(error.reason.contains("duplicate key \"typ\""), "\(error.reason)")
        #expect(!error.reason.contains("not a JSON object"))
    }

    @Test func tamperingIsDetected() throws {
        let token = try JWS.signJWT(payloadJSON: Array(#"{"admin":false}"#.utf8), credential: credential)
        let parts = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Array(#"{"admin":true}"#.utf8))
        let forged = try #require(JWS.decode("\(parts[0]).\(forgedPayload).\(parts[2])"))
        #expect(!JWS.verifyRS256(forged, key: sharedKey.publicKey))
        let other = try RSAPrivateKey.generate()
        #expect(!JWS.verifyRS256(try #require(JWS.decode(token)), key: other.publicKey))
    }

    @Test func algNoneNeverVerifies() throws {
        let unsigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + "."
        let decoded = try #require(JWS.decode(unsigned))
        #expect(decoded.signature.isEmpty)
        #expect(!JWS.verifyRS256(decoded, key: sharedKey.publicKey))
    }

    @Test func algorithmHeaderIsCheckedBeforeTheSignature() throws {
        // A valid RS256 signature under a header claiming another algorithm must not verify.
        let header = Array(#"{"alg":"RS512"}"#.utf8)
        let input = Base64URL.encode(header) + "." + Base64URL.encode(Array("{}".utf8))
        let signature = try sharedKey.signSHA256(Array(input.utf8))
        let decoded = try #require(JWS.decode(input + "." + Base64URL.encode(signature)))
        #expect(!JWS.verifyRS256(decoded, key: sharedKey.publicKey))
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", ".e30.", "e30.e30.+++", "e30.e30", "!!.e30.e30"])
    func decodeRejectsMalformedCompactForms(text: String) {
        #expect(JWS.decode(text) == nil)
    }

    @Test func headerAccessorsToleranceForOddHeaders() throws {
        let decoded = try #require(JWS.decode(Base64URL.encode(Array(#"{"kid":5}"#.utf8)) + ".e30."))
        #expect(decoded.keyID == nil)
        #expect(decoded.algorithm == nil)
        let notObject = try #require(JWS.decode(Base64URL.encode(Array("[1]".utf8)) + ".e30."))
        #expect(notObject.algorithm == nil)
    }
}
