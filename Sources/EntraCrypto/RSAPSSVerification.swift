private import COpenSSL

// Added by the idtoken helper: MSAL Python signs client assertions with PS256 whenever it knows the
// certificate's SHA-256 thumbprint (a PFX file, or `public_certificate`), so the token endpoint must
// verify RSASSA-PSS as Entra does.
extension RSAPublicKey {
    /// RSASSA-PSS with SHA-256 and MGF1-SHA-256 (JWS `PS256`, RFC 7518 §3.5); any salt length is accepted.
    package func verifySHA256PSS(signature: [UInt8], data: some Collection<UInt8>) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit_ex(context, &keyContext, CName.sha256, nil, nil, backing.pointer, nil) == 1, let keyContext,
              EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
              EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, -2 /* RSA_PSS_SALTLEN_AUTO */) == 1 else { return false }
        let input = Array(data)
        let result = input.withUnsafeBufferPointer { message in
            signature.withUnsafeBufferPointer { signatureBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureBytes.count, message.baseAddress, message.count)
            }
        }
        return result == 1
    }
}
