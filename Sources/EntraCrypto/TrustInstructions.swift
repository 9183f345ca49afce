import FoundationGaps

extension LocalCertificateAuthority {
    /// Commands that make common clients trust the local CA, with the CA's path filled in.
    package static func trustInstructions(caPath: String) -> String {
        let ca = shellQuoted(caPath)
        let certificate = try? X509Certificate(pem: SecureFile.read(caPath))
        var text = "FakeEntra's local CA: \(caPath)\n"
        if let certificate {
            if let name = certificate.subjectCommonName { text += "Subject: \(name)\n" }
            text += "SHA-256 fingerprint: \(certificate.sha256Thumbprint.map { String(format: "%02X", $0) }.joined(separator: ":"))\n"
            if let subtrees = certificate.permittedSubtrees {
                let names = subtrees.dns + subtrees.ip.compactMap { IPAddress.text($0.address) }
                text += "Its name constraints let it vouch only for: \(names.joined(separator: ", "))\n"
            }
        }
        text += """

        Debian / Ubuntu (system store, curl, most Linux tools):
          sudo cp \(ca) /usr/local/share/ca-certificates/fakeentra.crt
          sudo update-ca-certificates
          # undo: sudo rm /usr/local/share/ca-certificates/fakeentra.crt && sudo update-ca-certificates --fresh

        Fedora / RHEL:
          sudo cp \(ca) /etc/pki/ca-trust/source/anchors/fakeentra.pem
          sudo update-ca-trust

        macOS (System keychain, used by Safari, URLSession and MSAL for macOS):
          sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(ca)

        """
        if let certificate {
            text += "  # undo: sudo security delete-certificate -Z \(Hex.uppercase(certificate.sha1Thumbprint)) /Library/Keychains/System.keychain\n\n"
        }
        text += """
        iOS simulator (the booted one; repeat after erasing it):
          xcrun simctl keychain booted add-root-cert \(ca)

        Python (requests / MSAL for Python; these replace the default bundle for the process):
          export REQUESTS_CA_BUNDLE=\(ca)
          export SSL_CERT_FILE=\(ca)
          # to keep public CAs too: cat "$(python3 -m certifi)" \(ca) > fakeentra-bundle.pem and point both variables at it

        Node.js (adds to the built-in CAs):
          export NODE_EXTRA_CA_CERTS=\(ca)

        curl, one-off:
          curl --cacert \(ca) https://localhost:<port>/

        """
        return text
    }

    /// POSIX single-quoting, so paths with spaces or quotes paste safely into a shell.
    static func shellQuoted(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:@%,".unicodeScalars.contains($0) }
        if safe, !text.isEmpty { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
