import Foundation
import Testing

/// Access levels: declarations that cross modules inside the package are `package`; `public` is
/// FakeEntraTesting's API alone, the one library product. Every Swift target builds with internal imports
/// by default and member import visibility. Checked over the source text, so a stray `public` fails here.
@Suite struct AccessLevelRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// Declarations outside FakeEntraTesting that its public API names, so they must be `public` too
    /// ("File.swift: declaration"). Empty: FakeEntraTesting's signatures use its own types and Foundation's.
    static let publicOutsideTheTestingLibrary: Set<String> = []

    /// `public` or `open` as a declaration modifier, after any attributes and modifiers; not the word in prose.
    static let publicDeclaration = try! NSRegularExpression(
        pattern: #"^\s*(?:(?:@\w+(?:\([^)]*\))?|final|static|class|nonisolated|override|convenience|required|indirect|mutating|lazy)\s+)*(?:public|open)\s+(?:private\(set\)\s+)?(?:[a-z]+\s+)*?(?:func|var|let|init|struct|enum|protocol|extension|typealias|actor|subscript|class|import|case)\b.*$"#,
        options: [.anchorsMatchLines])

    static func swiftFiles(under folder: String) -> [(path: String, text: String)] {
        let walker = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).map { (url.path, $0) }
        }
    }

    static func publicDeclarations(in text: String) -> [String] {
        publicDeclaration.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { text[$0].trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func onlyTheTestingLibrariesArePublic() {
        // The two libraries users get: FakeEntraTesting, and FakeEntraControl (its control API client alone).
        let files = Self.swiftFiles(under: "Sources").filter { !$0.path.contains("/Sources/FakeEntraTesting/") && !$0.path.contains("/Sources/FakeEntraControl/") }
        #expect(files.count > 100, "the sources were found under \(Self.root.path)")
        var found: [String] = []
        for file in files {
            let name = URL(fileURLWithPath: file.path).lastPathComponent
            found += Self.publicDeclarations(in: file.text).map { "\(name): \($0)" }
                .filter { !Self.publicOutsideTheTestingLibrary.contains($0) }
        }
        #expect(found.isEmpty, "make these `package` (or, if FakeEntraTesting's public API names them, allow-list them):\n\(found.joined(separator: "\n"))")
    }

    @Test func theRuleSeesADeclaration() {
        #expect(Self.publicDeclarations(in: "    @discardableResult public func f() {}\npublic private(set) var x = 1").count == 2)
        #expect(Self.publicDeclarations(in: "/// a public client\nlet kind = a.isPublicClient ? \"public\" : \"confidential\"").isEmpty)
    }

    @Test func theTestingLibraryIsPublic() {
        let files = Self.swiftFiles(under: "Sources/FakeEntraTesting")
        #expect(files.contains { $0.path.hasSuffix("FakeEntraServer.swift") && $0.text.contains("public final class FakeEntraServer") })
    }

    /// Every Swift target takes the shared settings, and they turn on both import features (as Hummingbird).
    @Test func everySwiftTargetHasTheImportFeatures() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".enableUpcomingFeature("InternalImportsByDefault")"#))
        #expect(manifest.contains(#".enableUpcomingFeature("MemberImportVisibility")"#))
        let cTargets: Set<String> = ["COpenSSLShims", "CMallocStats", "CKqueueEmulation"]
        // Each target declaration runs up to the next one; the Swift ones must pass `swiftSettings`.
        let pieces = manifest.components(separatedBy: "Target(").dropFirst() + manifest.components(separatedBy: ".target(").dropFirst()
        var checked = 0
        for piece in pieces {
            guard let nameStart = piece.range(of: "name: \"") else { continue }
            let name = String(piece[nameStart.upperBound...].prefix { $0 != "\"" })
            let declaration = piece.components(separatedBy: "\n        .").first ?? piece
            if cTargets.contains(name) { continue }
            checked += 1
            #expect(declaration.contains("swiftSettings: swiftSettings"), "target \(name) does not take the shared swiftSettings")
        }
        #expect(checked >= 30)
    }
}
