#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationGaps

/// `serve`'s options from `FAKEENTRA_*` variables, for containers and CI services where the command line
/// is fixed (an image's command) or visible to every process (`ps`: the control secret). Each variable
/// stands for its option when the command line does not give it; the command line wins.
enum ServeEnvironment {
    enum Kind { case value, number, list, flag }

    /// Variable, option, kind. `FAKEENTRA_CERTS` is read where the certificate folder's default is made.
    static let table: [(variable: String, option: String, kind: Kind)] = [
        ("FAKEENTRA_HOST", "--host", .value),
        ("FAKEENTRA_PORT", "--port", .number),
        ("FAKEENTRA_HTTP_PORT", "--http-port", .number),
        ("FAKEENTRA_CONTROL_SECRET", "--control-secret", .value),
        ("FAKEENTRA_HOSTNAMES", "--hostname", .list),
        ("FAKEENTRA_CONFIG", "--config", .value),
        ("FAKEENTRA_STATE", "--state", .value),
        ("FAKEENTRA_SCENARIO", "--scenario", .list),
        ("FAKEENTRA_AUTO_LOGIN", "--auto-login", .flag),
        ("FAKEENTRA_STRICT", "--strict", .flag),
        ("FAKEENTRA_QUIET", "--quiet", .flag),
    ]

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// `arguments` (without the program's name) with the options the environment gives added after the
    /// subcommand, when the subcommand is `serve` (named, or the default one).
    static func arguments(_ arguments: [String], environment: [String: String]) throws(Problem) -> [String] {
        let servesByDefault = arguments.first.map { $0.hasPrefix("-") && !["-h", "--help", "--version"].contains($0) } ?? true
        guard arguments.first == "serve" || servesByDefault else { return arguments }
        // Help describes the variables; a bad one must not stand between the user and reading it.
        if arguments.contains(where: { ["-h", "--help", "-help"].contains($0) }) { return arguments }
        var added: [String] = []
        for entry in table {
            guard let raw = environment[entry.variable]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { continue }
            let given = arguments.contains { $0 == entry.option || $0.hasPrefix(entry.option + "=") }
            guard !given else { continue }
            switch entry.kind {
            case .value:
                // Joined with "=": a value that starts with "-" (a random secret does, one time in 64) is
                // otherwise read as an option of its own.
                added.append("\(entry.option)=\(raw)")
            case .number:
                guard let number = Int(raw), (0...65535).contains(number) else {
                    throw Problem(description: "\(entry.variable)=\(raw): not a port number (0 to 65535)")
                }
                added += [entry.option, String(number)]
            case .list:
                for item in raw.split(whereSeparator: { $0 == "," || $0 == " " }) { added.append("\(entry.option)=\(item)") }
            case .flag:
                switch raw.lowercased() {
                case "1", "true", "yes": added.append(entry.option)
                case "0", "false", "no": break
                default: throw Problem(description: "\(entry.variable)=\(raw): give 1 or 0 (true or false)")
                }
            }
        }
        guard !added.isEmpty else { return arguments }
        return arguments.first == "serve" ? ["serve"] + added + arguments.dropFirst() : added + arguments
    }
}
