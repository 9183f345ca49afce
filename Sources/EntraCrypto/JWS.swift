import LocatedJSON

/// Compact JWS (RFC 7515 §7.1) with RS256, the only algorithm Entra ID uses for tokens.
package enum JWS {
    /// Signs `payloadJSON` under `headerJSON` (a JSON object). `"alg":"RS256"` is added when the header
    /// has no `alg`; a header naming another algorithm is refused. The header bytes are otherwise kept
    /// exactly as given, so callers control member order (Entra puts `typ` first).
    package static func signRS256(headerJSON: [UInt8], payloadJSON: [UInt8], key: RSAPrivateKey) throws -> String {
        let header = try headerWithAlgorithm(headerJSON)
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payloadJSON)
        let signature = try key.signSHA256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Header `{"typ":"JWT","alg":"RS256","x5t":kid,"kid":kid}`, as Entra ID writes it.
    package static func signJWT(payloadJSON: [UInt8], credential: SigningCredential) throws -> String {
        try signJWTWithDigest(payloadJSON: payloadJSON, credential: credential).token
    }

    /// `signJWT`'s token and its SHA-256. The token is written straight into the string's storage: the
    /// key's pre-encoded header, the payload, then the signature of what precedes it. The hash of the
    /// first two parts, which the signature needs, is carried on over the third for the token's own.
    package static func signJWTWithDigest(payloadJSON: [UInt8], credential: SigningCredential) throws -> (token: String, sha256: [UInt8]) {
        let header = credential.jwtHeaderSegment
        let key = credential.privateKey
        let signingInputLength = header.count + 1 + Base64URL.encodedLength(payloadJSON.count)
        let capacity = signingInputLength + 1 + Base64URL.encodedLength(key.maximumSignatureSize)
        let hash = SHA256Stream()
        let token = try String(unsafeUninitializedCapacity: capacity) { token in
            _ = token.initialize(from: header)
            token[header.count] = UInt8(ascii: ".")
            payloadJSON.withUnsafeBufferPointer { Base64URL.write($0, into: token, at: header.count + 1) }
            hash.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: token[..<signingInputLength])))
            let signature = try key.signSHA256(digest: hash.digestSoFar())
            precondition(signature.count <= key.maximumSignatureSize, "a signature longer than the key's modulus")
            token[signingInputLength] = UInt8(ascii: ".")
            signature.withUnsafeBufferPointer { Base64URL.write($0, into: token, at: signingInputLength + 1) }
            let length = signingInputLength + 1 + Base64URL.encodedLength(signature.count)
            hash.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: token[signingInputLength..<length])))
            return length
        }
        return (token, hash.finish())
    }

    /// Splits and decodes without verifying (nil unless three base64url segments with a non-empty header).
    package static func decode(_ compact: String) -> DecodedJWS? {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty,
              let header = Base64URL.decode(String(parts[0])),
              let payload = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])) else { return nil }
        return DecodedJWS(headerJSON: header, payloadJSON: payload, signature: signature,
                          signingInput: Array("\(parts[0]).\(parts[1])".utf8))
    }

    /// Verifies RS256 against the key; false for any other `alg` (notably `none`).
    package static func verifyRS256(_ token: DecodedJWS, key: RSAPublicKey) -> Bool {
        guard token.algorithm == "RS256" else { return false }
        return key.verifySHA256(signature: token.signature, data: token.signingInput)
    }

    private static func headerWithAlgorithm(_ headerJSON: [UInt8]) throws -> [UInt8] {
        let header: JSONValue
        do throws(JSONProblems) {
            header = try LocatedJSON.parse(headerJSON, file: "JWS header")
        } catch {
            // RFC 7515 §4: a header's names must be unique; the parser's words say which one repeats, or
            // what else is wrong.
            throw CryptoError(.invalidJSON, "the JWS header is not valid JSON: " + error.problems.map(\.message).joined(separator: "; "))
        }
        guard header.members != nil else {
            throw CryptoError(.invalidJSON, "the JWS header is not a JSON object")
        }
        switch header["alg"] {
        case nil:
            // Insert right after the opening brace, leaving the caller's bytes otherwise untouched.
            guard let brace = headerJSON.firstIndex(of: UInt8(ascii: "{")) else {
                throw CryptoError(.invalidJSON, "the JWS header is not a JSON object")
            }
            let rest = headerJSON[(brace + 1)...]
            let isEmpty = rest.allSatisfy { [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "}")].contains($0) }
            let inserted = Array(#""alg":"RS256""#.utf8) + (isEmpty ? [] : [UInt8(ascii: ",")])
            return Array(headerJSON[...brace]) + inserted + rest
        case let algorithm? where algorithm.string == "RS256":
            return headerJSON
        case let other?:
            throw CryptoError(.signing, "cannot sign RS256 under a header whose alg is \(other.string ?? other.compactText)")
        }
    }
}

/// A compact JWS split into its parts; nothing about it has been verified.
package struct DecodedJWS: Sendable, Equatable {
    package let headerJSON: [UInt8]
    package let payloadJSON: [UInt8]
    package let signature: [UInt8]
    /// ASCII `b64header.b64payload`, exactly as received.
    package let signingInput: [UInt8]

    package var algorithm: String? { headerString("alg") }
    package var keyID: String? { headerString("kid") }
    package var x5t: String? { headerString("x5t") }

    /// A string member of the header, nil when absent, not a string, or the header is not an object.
    package func headerString(_ name: String) -> String? {
        LocatedJSON.object(body: headerJSON)?[name]?.string
    }
}
