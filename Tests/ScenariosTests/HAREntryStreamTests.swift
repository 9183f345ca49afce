import FakeEntraApp
import Foundation
import Testing
@testable import Scenarios

/// `replay` reads a capture entry by entry, however the file's chunks fall.
@Suite struct HAREntryStreamTests {
    static let document = #"""
    {"log": {"version": "1.2", "creator": {"name": "x", "entries": [{"not": "these"}]},
     "pages": [{"id": "p", "entries": "nor \" this"}],
     "entries": [
       {"request": {"url": "https://a/\"}{]["}, "n": 1},
       {"request": {"url": "https://b/"}, "nested": {"entries": [{"deep": true}]}, "n": -2.5e3}
     ]},
     "\u006cog2": null}
    """#

    static func entries(_ text: String, chunk: Int) throws(HARImportError) -> [String] {
        var scanner = HAREntryScanner()
        var found: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try scanner.feed(bytes[start..<end], source: "t.har") { found.append(String(decoding: $0, as: UTF8.self)) }
            start = end
        }
        try scanner.finish(source: "t.har")
        return found
    }

    @Test func everyChunkingYieldsTheSameEntriesAndOnlyLogEntries() throws {
        let whole = try Self.entries(Self.document, chunk: Int.max)
        #expect(whole.count == 2)
        #expect(whole[0].hasPrefix("{\"request\": {\"url\": \"https://a/\\\"}{][\"}"))
        #expect(whole[1].hasSuffix("\"n\": -2.5e3}"))
        for size in [1, 2, 3, 7, 64] {
            #expect(try Self.entries(Self.document, chunk: size) == whole, "chunks of \(size) bytes")
        }
        for entry in whole { #expect((try? JSONSerialization.jsonObject(with: Data(entry.utf8))) is [String: Any]) }
    }

    @Test(arguments: [
        "", "[1,2]", "{\"log\": {}}", "{\"log\": {\"entries\": {}}}", "{\"log\": {\"entries\": [1]}}",
        "{\"log\": {\"entries\": [{}]}", "{\"log\": {\"entries\": [{}]}} x", "{\"log\": {\"entries\": [{\"a\": \"unterminated}]}}",
        "{\"log\": {\"entries\": [{]}}", "{\"log\": {\"entries\": [{}]}, @}",
    ])
    func brokenDocumentsAreNotHARFiles(text: String) {
        #expect(throws: HARImportError.self) { _ = try Self.entries(text, chunk: 5) }
    }

    @Test func aFileSourceConvertsLikeItsBytes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).har").path
        try Data(HARImportTests.entraCapture.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try HARImporter.convert(.file(path: path), name: "captured", source: "refresh.har", routes: ApplicationRoutes.forRecordings)
        #expect(fromFile == (try HARImporter.convert(har: Array(HARImportTests.entraCapture.utf8), name: "captured", source: "refresh.har", routes: ApplicationRoutes.forRecordings)))
        #expect(throws: HARImportError.self) { try HARImporter.convert(.file(path: path + ".missing"), name: "captured", routes: ApplicationRoutes.forRecordings) }
    }
}
