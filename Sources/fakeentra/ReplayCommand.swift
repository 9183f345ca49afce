#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FoundationGaps
import FakeEntraApp
import Scenarios

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Turn a HAR capture of a client talking to Entra ID, B2C or Graph into a scenario file.",
        discussion: "Failures are replayed as captured, successes are answered by FakeEntra with its own keys, personal data is replaced by demo data. `fakeentra journal --har` exports replay too."
    )

    @Argument(help: ArgumentHelp("The HAR 1.2 file (browser dev tools, Proxyman, Charles, fakeentra journal --har).", valueName: "capture.har"))
    var capture: String
    @Option(help: "Scenario name (kebab-case); default from the capture's file name.") var name: String?
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write the scenario here instead of standard output.", valueName: "out.json"))
    var output: String?

    func run() throws {
        guard FileManager.default.isReadableFile(atPath: capture) else {
            throw failure("cannot read \(capture): \(FileManager.default.fileExists(atPath: capture) ? "not a readable file" : "no such file")")
        }
        let scenario: String
        do {
            // Read entry by entry: a 50,000-entry export is no reason to hold a gigabyte of JSON objects.
            scenario = try HARImporter.convert(.file(path: capture), name: name ?? HARImporter.scenarioName(fromFile: capture), source: (capture).lastPathComponent, routes: ApplicationRoutes.forRecordings)
        } catch {
            throw failure(error.description)
        }
        guard let output else {
            FileHandle.standardOutput.write(Data(scenario.utf8))
            return
        }
        do { try Data(scenario.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
            throw failure("cannot write \(output): \(error.localizedDescription)")
        }
    }
}
