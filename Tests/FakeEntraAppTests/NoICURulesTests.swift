import Foundation
import Testing

/// The shipping `fakeentra` links FoundationEssentials and not Foundation's internationalization half,
/// whose ICU data made most of the image: no module it is built from imports `Foundation` (or
/// FoundationNetworking, FoundationInternationalization) where FoundationEssentials can be imported (the
/// `#else` of `#if canImport(FoundationEssentials)` is Apple's platforms, whose Foundation is the
/// system's), and the binary built for the tests loads none of them. The test libraries
/// (FakeEntraTesting, FakeEntraControl) and the load driver keep Foundation.
@Suite struct NoICURulesTests {
    static let root = AccessLevelRulesTests.root
    /// The modules `fakeentra` is built from (Package.swift's executable target and what it depends on).
    static let shippingModules = [
        "B2C", "Conformance", "Console", "ControlPlane", "EntraCrypto", "EntraHTTP", "EntraServer", "ExchangeKernel", "FakeEntraApp",
        "FoundationGaps", "Graph", "HeadlessBrowser", "IdentityPlatform", "Journal", "LinearRegex", "LocatedJSON", "ManagedIdentity",
        "ResourceManager", "Scenarios", "StateStore", "fakeentra",
    ]
    /// `#if canImport(FoundationEssentials) … #else import Foundation #endif`: the one allowed form.
    static let essentialsOrFoundation = try! NSRegularExpression(
        pattern: #"#if canImport\(FoundationEssentials\)\n[^#]*#else\n[^#]*#endif"#)
    static let forbidden = try! NSRegularExpression(
        pattern: #"^\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(?:Foundation|FoundationNetworking|FoundationInternationalization|FoundationXML)\s*$"#,
        options: [.anchorsMatchLines])

    @Test func noShippingModuleImportsFoundation() {
        var found: [String] = []
        var read = 0
        for module in Self.shippingModules {
            for file in AccessLevelRulesTests.swiftFiles(under: "Sources/\(module)") {
                read += 1
                let text = Self.essentialsOrFoundation.stringByReplacingMatches(
                    in: file.text, range: NSRange(file.text.startIndex..., in: file.text), withTemplate: "")
                for match in Self.forbidden.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range, in: text) { found.append("\(file.path): \(text[range].trimmingCharacters(in: .whitespacesAndNewlines))") }
                }
            }
        }
        #expect(read > 200, "the sources were found under \(Self.root.path)")
        #expect(found.isEmpty, "import FoundationEssentials (and FoundationGaps for what it lacks) instead:\n\(found.joined(separator: "\n"))")
    }

    /// The test build is dynamic: the libraries the binary loads say what it links.
    @Test func theBinaryLoadsNoFoundationButTheEssentials() throws {
        let binary = Self.root.appendingPathComponent(".build/debug/fakeentra").resolvingSymlinksInPath().path
        try #require(FileManager.default.fileExists(atPath: binary), "build the fakeentra product first (swift build)")
        #if os(Linux)
        let image = try Data(contentsOf: URL(fileURLWithPath: binary), options: .alwaysMapped)
        func names(_ library: String) -> Bool { image.range(of: Data((library + "\0").utf8)) != nil }
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libFoundationNetworking.so"] {
            #expect(!names(library), "fakeentra links \(library)")
        }
        #expect(names("libFoundationEssentials.so"))
        #endif
    }
}
