import ArgumentParser
import EntraCrypto

/// Options shared by `serve` and `certs`: where the local CA lives and which names it covers.
struct CertificateOptions: ParsableArguments {
    @Option(name: .customLong("certs"), help: "Directory of the local CA, server certificate and token-signing key.")
    var directory: String = "./Certs"

    @Option(name: .customLong("hostname"), help: ArgumentHelp("Extra name for the server certificate (repeatable), e.g. login.microsoftonline.com, graph.microsoft.com, *.b2clogin.com.", valueName: "name"))
    var hostnames: [String] = []

    func ensure() throws -> CertificatePaths {
        try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
    }
}
