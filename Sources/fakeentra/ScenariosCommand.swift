#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FakeEntraApp
import FoundationGaps
import IdentityPlatform
import Scenarios
import LocatedJSON

struct ScenariosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "Check and list scenario files.",
        subcommands: [Validate.self, List.self]
    )

    /// Where scenarios come from, as `serve` reads them.
    struct Sources: ParsableArguments {
        @Option(name: .customLong("scenarios"), help: ArgumentHelp("A folder of your own scenario files, added to the shipped library (repeatable).", valueName: "dir"))
        var directories: [String] = []
        @Option(name: .customLong("config"), help: "The configuration the scenarios' users, apps and tenants are checked against (as `serve --config`).")
        var configFile: String?

        func directory() throws -> Directory {
            do { return try LoadedConfiguration.load(file: configFile).identity.directory } catch {
                throw failure("the configuration has problems:\n\(error.description)")
            }
        }

        /// The shipped library and the `--scenarios` folders, validated together.
        func report() throws -> ScenarioValidationReport {
            let base = try directory()
            var report = ScenarioLibrary.validate(files: directories.flatMap(ScenarioLibrary.files(in:)), baseDirectory: base)
            do {
                let shipped = try ScenarioLibrary.shipped(baseDirectory: base)
                report.scenarios = shipped.names.compactMap { shipped[$0] } + report.scenarios
            } catch {
                report.problems = error.problems + report.problems
            }
            return report
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Validate scenario files; without files, the shipped library and every --scenarios folder.",
            discussion: "Every problem is printed as file:line:column: message. Exit status 1 when a file is invalid."
        )

        @Argument(help: ArgumentHelp("Scenario files or folders of them.", valueName: "file")) var files: [String] = []
        @OptionGroup var sources: Sources

        func run() throws {
            let report: ScenarioValidationReport
            if files.isEmpty {
                report = try sources.report()
            } else {
                report = ScenarioLibrary.validate(files: files.flatMap(ScenarioLibrary.files(in:)), baseDirectory: try sources.directory())
            }
            guard report.isValid else {
                print(report.description)
                let files = Set(report.problems.map(\.file)).count
                FileHandle.standardError.write(Data("fakeentra: \(report.problems.count) problem(s) in \(files) file(s)\n".utf8))
                throw ExitCode(1)
            }
            print("\(report.scenarios.count) scenario\(report.scenarios.count == 1 ? "" : "s") valid")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Name and one-line summary of every scenario `serve` would load.")

        @OptionGroup var sources: Sources

        func run() throws {
            let report = try sources.report()
            guard report.isValid else {
                print(report.description)
                throw ExitCode(1)
            }
            var byName: [String: Scenario] = [:]
            // A user's scenario replaces a shipped one of the same name, as in `serve`.
            for scenario in report.scenarios { byName[scenario.name] = scenario }
            let width = byName.keys.map(\.count).max() ?? 0
            for name in byName.keys.sorted() {
                print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + byName[name]!.summary)
            }
        }
    }
}

/// Writes `fakeentra: message` on stderr and gives the exit status 1 to throw: a clear line, no `Error:` prefix.
func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("fakeentra: \(message)\n".utf8))
    return ExitCode.failure
}
