#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto

/// Options shared by `serve` and `certs`: where the local CA lives and which names it covers.
struct CertificateOptions: ParsableArguments {
    @Option(name: .customLong("certs"), help: "Directory of the local CA, server certificate and token-signing key (default: FAKEENTRA_CERTS, else a folder of your user's).")
    var certs: String = CertificateDirectory.defaultPath()

    /// Absolute, so every path and command printed from it works in any folder.
    var directory: String { CertificateDirectory.absolute(certs) }

    @Option(name: .customLong("hostname"), help: ArgumentHelp("Extra name for the server certificate (repeatable), e.g. login.microsoftonline.com, graph.microsoft.com, *.b2clogin.com.", valueName: "name"))
    var hostnames: [String] = []

    func ensure() throws -> CertificatePaths {
        try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
    }
}
