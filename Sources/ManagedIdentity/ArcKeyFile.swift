import EntraCrypto
import EntraHTTP
import FoundationGaps

/// The key file an Azure Arc agent (HIMDS) names in its challenge (`WWW-Authenticate: Basic
/// realm=<path>`): the caller proves it runs on the machine by reading the file and sending its content
/// back as `Authorization: Basic <content>`. MSAL and azure-identity accept only a `.key` file of at most
/// 4096 bytes directly in `/var/opt/azcmagent/tokens` on Linux (MSAL for Python's managed_identity.py,
/// azure-identity's azure_arc.py), so FakeEntra writes its one there: one file per server process,
/// written on the first challenge and reused, so requests cannot fill the disk.
struct ArcKeyFile: Sendable {
    static let directory = "/var/opt/azcmagent/tokens"

    let path: String
    let secret: String

    /// The process's key file, or why it could not be written (a directory only root may create).
    static let current: Result<ArcKeyFile, ArcKeyFileError> = write(in: directory, name: "fakeentra-\(ProcessInfo.processInfo.processIdentifier).key")

    static func write(in directory: String, name: String) -> Result<ArcKeyFile, ArcKeyFileError> {
        let secret = SecureRandom.base64URLString(byteCount: 24)
        let path = directory + "/" + name
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            return .failure(ArcKeyFileError(path: path, reason: "\(error)"))
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]) else {
            return .failure(ArcKeyFileError(path: path, reason: "the file could not be written"))
        }
        return .success(ArcKeyFile(path: path, secret: secret))
    }

    /// `Authorization: Basic <content>`: the file's content as written, not base64 (what the clients send).
    func accepts(_ authorization: String?) -> Bool {
        guard let authorization, let credentials = authorization.credentials(ofScheme: "basic") else { return false }
        return ConstantTime.equals(String(credentials).trimmingCharacters(in: .whitespaces), secret)
    }
}

struct ArcKeyFileError: Error, Sendable {
    var path: String
    var reason: String

    var description: String {
        "FakeEntra could not write the Azure Arc key file \(path) (\(reason)); clients read it only from \(ArcKeyFile.directory): run FakeEntra with the right to create it"
    }
}
