import Foundation
import Testing
import LocatedJSON
@testable import Scenarios

@Suite struct LibraryTests {
    static let directory = TestPaths.repository + "/Scenarios"

    @Test func everyShippedScenarioLoadsAndValidates() throws {
        let files = ScenarioLibrary.files(in: Self.directory)
        let report = ScenarioLibrary.validate(files: files)
        #expect(report.isValid, "\(report)")
        #expect(report.scenarios.count >= 25)
        // File names are the scenario names, so `--scenario NAME` and the file agree.
        for scenario in report.scenarios {
            #expect(URL(fileURLWithPath: scenario.source).deletingPathExtension().lastPathComponent == scenario.name)
            #expect(scenario.description.count > 120, "\(scenario.name): the description must say what the service does, what it exercises and how a correct client ends")
        }
    }

    @Test func theCompiledInLibraryIsTheFilesVerbatim() throws {
        let files = ScenarioLibrary.files(in: Self.directory)
        #expect(ScenarioLibrary.shippedFiles.map(\.file) == files.map { URL(fileURLWithPath: $0).lastPathComponent })
        for (file, text) in ScenarioLibrary.shippedFiles {
            let onDisk = try String(contentsOfFile: Self.directory + "/" + file, encoding: .utf8)
            #expect(text == onDisk, "\(file) differs from its file")
        }
        let shipped = try ScenarioLibrary.shipped()
        #expect(shipped.names == (try ScenarioLibrary.load(directories: [Self.directory])).names)
        let mine = try Harness.scenario(#"{"name": "happy-path", "description": "my own", "rules": []}"#)
        #expect(shipped.merging(ScenarioLibrary([mine]))["happy-path"]?.description == "my own", "a user's folder overrides")
    }

    @Test func loadFailsWholeWhenOneFileIsBad() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenarios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"name": "good-one", "description": "fine", "rules": []}"#.write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try #"{"name": "good-one", "description": "same name", "rules": []}"#.write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        #expect(throws: ScenarioValidationReport.self) { try ScenarioLibrary.load(directories: [dir.path]) }
        do {
            _ = try ScenarioLibrary.load(directories: [dir.path])
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems[0].location.line == 1)
            #expect(error.problems[0].location.column == 10)
            #expect(error.problems[0].message.contains("already used by"))
        }
    }
}
