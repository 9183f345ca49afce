import Foundation
@testable import Scenarios
import Testing

/// The one-pass scanners find exactly what the regular expressions they replace find, without their
/// quadratic backtracking over long token-like runs.
@Suite struct PersonalDataSpansTests {
    static func regexSpans(_ pattern: String, _ text: String) -> [Range<Int>] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length)).map { $0.range.location..<($0.range.location + $0.range.length) }
    }

    /// Random ASCII texts built from the bytes that matter (so byte and UTF-16 offsets agree).
    static func texts(_ pieces: [String], count: Int) -> [String] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in (0..<Int.random(in: 0...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
    }

    @Test func emailsAsTheExpressionFindsThem() {
        let pattern = "[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}"
        let fixed = ["adele@contoso.com", "a@b.c", "x@y@b.com", "first.last+tag@mail.example.org5", "@@a.bc", "a@.bc", "a@b..cd", "é a@b.cd",
                     "mail: o'brien@example.co.uk, done", "a@b.c1d.ef", "a@-.ab", "tok_9-.@x.yz.", "a@b.cdé"]
        for text in fixed + Self.texts(["a", "Z", "1", ".", "-", "_", "@", "'", "+", "%", " ", "com", "ab", ".c", "@x"], count: 3000) {
            #expect(PersonalDataSpans.emails(Array(text.utf8)) == Self.regexSpans(pattern, text) || text.utf8.count != (text as NSString).length, "\(text)")
        }
    }

    @Test func tenantDomainsAsTheExpressionFindsThem() {
        let pattern = "\\b[A-Za-z0-9-]+\\.onmicrosoft\\.com\\b"
        let fixed = ["contoso.onmicrosoft.com", "x-.onmicrosoft.com", "_a.onmicrosoft.com", "a.onmicrosoft.comx", "a.onmicrosoft.com.onmicrosoft.com",
                     "-a-.onmicrosoft.com-", ".onmicrosoft.com", "a_.onmicrosoft.com", "user@fab-b2c.onmicrosoft.com"]
        for text in fixed + Self.texts(["a", "9", "-", "_", ".", " ", ".onmicrosoft.com", ".onmicrosoft.co", "x"], count: 3000) {
            #expect(PersonalDataSpans.tenantDomains(Array(text.utf8)) == Self.regexSpans(pattern, text), "\(text)")
        }
    }

    /// A 256 KB token-like run (what made the expressions take minutes) around a real address: found,
    /// and the run kept as it was.
    @Test func aLongTokenLikeRunIsScannedOnce() {
        let run = String(repeating: "eyJ0eXAiOiJKV1Qi-_x.", count: 13_000)
        var anonymizer = Anonymizer(keeping: [])
        let scrubbed = anonymizer.scrub(run + " adele@real-corp.com " + run + "x.onmicrosoft.com")
        #expect(scrubbed.contains(" adele.vance@contoso.onmicrosoft.com ") && scrubbed.hasPrefix(run) && !scrubbed.contains("real-corp"))
    }
}
