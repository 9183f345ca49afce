#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto

struct CertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Create (or reuse) the local CA and server certificate, and print how to trust the CA."
    )

    @OptionGroup var certificates: CertificateOptions

    @Flag(help: "Print the certificate directory (absolute) and nothing else; create nothing.")
    var printDirectory = false

    func run() throws {
        if printDirectory {
            print(certificates.directory)
            return
        }
        let paths = try certificates.ensure()
        print("Directory:          \(certificates.directory)")
        print("CA certificate:     \(paths.caCertificate)")
        print("Server certificate: \(paths.serverCertificate) for \(paths.names.joined(separator: ", "))")
        if paths.caRegenerated {
            print("A new CA was created: trust it again in every client that trusted the previous one.")
        }
        print("")
        print(LocalCertificateAuthority.trustInstructions(caPath: paths.caCertificate))
    }
}
