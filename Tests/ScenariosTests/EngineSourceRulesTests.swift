import Foundation
import Testing

/// The engine learns what the platform did from receipts: it never scrapes a rendered answer, and
/// no request state travels as a task-local. Checked over the source text, so a regression fails here.
@Suite struct EngineSourceRulesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized

    static func swiftFiles(under folder: String) -> [(path: String, text: String)] {
        let root = sources.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).map { (url.path, $0) }
        }
    }

    @Test func noTaskLocalInSources() {
        let files = Self.swiftFiles(under: "")
        #expect(files.count > 100, "the sources were found at \(Self.sources.path)")
        for file in files { #expect(!file.text.contains("@TaskLocal"), "\(file.path)") }
    }

    /// The engine (world selection, rules, answers) reads receipts and routes: no regular expression, no JSON
    /// parse, no read of a response body. (Sources/Scenarios/Replay reads HAR recordings of the real service:
    /// files a person gives it, not answers the platform rendered.)
    @Test func theEngineNeverParsesAnAnswer() {
        let files = Self.swiftFiles(under: "Scenarios/Engine")
        #expect(files.count >= 5)
        let forbidden = ["NSRegularExpression", ".regularExpression", "Regex", "JSONSerialization", "JSONDecoder", "LocatedJSON.parse",
                         "response.body", "response.bodyText", ".bodyText"]
        for file in files {
            for word in forbidden { #expect(!file.text.contains(word), "\(file.path) uses \(word)") }
        }
    }
}
