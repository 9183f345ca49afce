import Foundation
import Testing
@testable import Scenarios

/// The schema and the shipped library are compiled in as Swift literals. After editing
/// `docs/schemas/scenario.schema.json` or `Scenarios/*.json`, regenerate the literals with
/// `FAKEENTRA_REGENERATE=1 swift test --filter ScenariosTests.EmbeddedCopies`; otherwise this suite
/// fails when a copy differs from its file.
@Suite struct EmbeddedCopies {
    static let regenerate = ProcessInfo.processInfo.environment["FAKEENTRA_REGENERATE"] == "1"
    static let sources = TestPaths.repository + "/Sources/Scenarios/Model"

    static func schemaSource() throws -> String {
        let schema = try String(contentsOfFile: TestPaths.repository + "/docs/schemas/scenario.schema.json", encoding: .utf8)
        return "// Generated from docs/schemas/scenario.schema.json (a test asserts both are identical).\n"
            + "extension ScenarioSchema {\n    /// The published JSON Schema of scenario files, verbatim.\n    public static let text: String = #\"\"\"\n"
            + schema + "\n\"\"\"#\n}\n"
    }

    static func librarySource() throws -> String {
        var out = "// Generated from Scenarios/*.json (a test asserts the copies are identical to the files).\n"
            + "extension ScenarioLibrary {\n    /// The shipped library, compiled in so the binary needs no files: (file name, text).\n"
            + "    public static let shippedFiles: [(file: String, text: String)] = [\n"
        for path in ScenarioLibrary.files(in: LibraryTests.directory) {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            out += "        (\"\(URL(fileURLWithPath: path).lastPathComponent)\", #\"\"\"\n" + text + "\"\"\"#),\n"
        }
        return out + "    ]\n}\n"
    }

    @Test func schemaLiteralMatchesThePublishedSchema() throws {
        let path = Self.sources + "/ScenarioSchema+Text.swift"
        if Self.regenerate { try Self.schemaSource().write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.schemaSource())
    }

    @Test func libraryLiteralMatchesTheShippedFiles() throws {
        let path = Self.sources + "/ShippedScenarios.swift"
        if Self.regenerate { try Self.librarySource().write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.librarySource())
    }
}
