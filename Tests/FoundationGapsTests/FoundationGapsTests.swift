import FoundationEssentials
import FoundationGaps
import Testing

/// The shims that replace Foundation's internationalization half agree with Foundation on what
/// FakeEntra asks of them.
@Suite struct FoundationGapsTests {
    /// The zones Graph's Windows names map to and a few more (southern hemisphere, half hours, no DST),
    /// every month from 1970 to 2040: the transitions of the file, then its POSIX rule.
    @Test(arguments: ["Europe/Paris", "America/Los_Angeles", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
                      "America/Sao_Paulo", "Pacific/Auckland", "Asia/Tokyo", "Africa/Casablanca", "America/St_Johns", "Europe/London"])
    func zoneOffsetsAgreeWithFoundation(zone: String) throws {
        let info = try #require(ZoneInfo.named(zone))
        var mismatches: [String] = []
        var compared = 0
        for month in stride(from: 0, to: 71 * 12, by: 1) {
            for hour in [0.0, 13.5] {
                let instant = Date(timeIntervalSince1970: Double(month) * 2_629_746 + hour * 3600)
                guard let expected = FoundationReference.offset(zone, at: instant) else { continue }
                compared += 1
                if info.offset(at: instant) != expected { mismatches.append("\(instant): \(info.offset(at: instant)) vs \(expected)") }
            }
        }
        #expect(compared == 71 * 12 * 2, "Foundation knows the zone")
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func unknownZonesAndPathsAreRefused() {
        #expect(ZoneInfo.named("Mars/Olympus_Mons") == nil)
        #expect(ZoneInfo.named("../../etc/passwd") == nil)
        #expect(ZoneInfo.named("/etc/localtime") == nil)
    }

    @Test func daylightTimeAfterTheLastTransitionFollowsTheRule() throws {
        let paris = try #require(ZoneInfo.named("Europe/Paris"))
        // 2060: beyond the transitions a fat file lists; summer +2, winter +1.
        #expect(paris.offset(at: Date(timeIntervalSince1970: 2_855_000_000)) == 7200)    // 2060-06-21
        #expect(paris.offset(at: Date(timeIntervalSince1970: 2_840_000_000)) == 3600)    // 2059-12-30
        let sydney = try #require(ZoneInfo.named("Australia/Sydney"))
        #expect(sydney.offset(at: Date(timeIntervalSince1970: 2_840_000_000)) == 39600)  // southern summer
    }

    @Test(arguments: ["  a b \t", "\u{00A0}x\u{2003}", "", "   ", "no-space", "\n line \n"])
    func trimmingAgrees(text: String) {
        #expect(text.trimmingCharacters(in: .whitespaces) == FoundationReference.trimmed(text))
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == FoundationReference.trimmedWithNewlines(text))
    }

    @Test func searchingAndReplacingAgree() {
        let cases: [(String, String, String)] = [
            ("Hello <b>World</b><br/>", "<[^>]+>", " "), ("aaa", "a", "bb"), ("Trace ID: x Correlation ID: y", "ID", "Id"),
            ("MiXeD mixed MIXED", "mixed", "m"), ("", "x", "y"),
        ]
        for (text, target, replacement) in cases {
            for regex in [false, true] {
                for caseInsensitive in [false, true] {
                    var options: String.CompareOptions = []
                    if regex { options.insert(.regularExpression) }
                    if caseInsensitive { options.insert(.caseInsensitive) }
                    #expect(text.replacingOccurrences(of: target, with: replacement, options: options)
                            == FoundationReference.replaced(text, target, replacement, regex: regex, caseInsensitive: caseInsensitive), "\(text) \(options)")
                }
            }
            for backwards in [false, true] {
                for caseInsensitive in [false, true] where !target.hasPrefix("<") {
                    var options: String.CompareOptions = []
                    if backwards { options.insert(.backwards) }
                    if caseInsensitive { options.insert(.caseInsensitive) }
                    let ours = text.range(of: target, options: options).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
                    #expect(ours == FoundationReference.found(text, target, backwards: backwards, caseInsensitive: caseInsensitive), "\(text) \(options)")
                }
            }
        }
        #expect("b".caseInsensitiveCompare("A") == .orderedDescending && "ABC".caseInsensitiveCompare("abc") == .orderedSame)
    }

    @Test func formattingAgrees() {
        let cases: [(String, [any CVarArg])] = [
            ("%.1f h", [2.25]), ("%.3f", [0.0005]), ("%02X", [UInt8(7)]), ("%08X", [UInt32(0xBEEF)]), ("%g s", [1.5]),
            ("%02d:%02d:%02d", [1, 2, 3]), ("%016llx%016llx", [UInt64(1), UInt64.max]), ("%.2f ms", [1234.5678]),
        ]
        for (format, arguments) in cases {
            #expect(String(format: format, arguments: arguments) == FoundationReference.formatted(format, arguments), "\(format)")
        }
    }

    @Test func percentEncodingAndPathsAgree() {
        for text in ["a b&c=d", "é/ü?x", "plain", "100%"] {
            #expect(text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) == FoundationReference.percentEncoded(text))
        }
        for text in ["a%20b", "%E2%9C%93", "bad%zz", "%"] {
            #expect(text.removingPercentEncoding == FoundationReference.percentDecoded(text), "\(text)")
        }
        // (Not a component with a leading slash: Linux's Foundation doubles the slash, Darwin's and ours do not.)
        for (path, component) in [("/a/b", "c"), ("/a/b/", "c"), ("", "c"), ("/", "x")] {
            #expect(path.appendingPathComponent(component) == FoundationReference.appending(path, component), "\(path) + \(component)")
        }
        for path in ["/a/b/c", "/a/b/", "/a", "/", "a", "a/b"] {
            #expect(path.lastPathComponent == FoundationReference.last(path), "\(path)")
        }
        // Linux's Foundation traps on NSString's deletingLastPathComponent: Darwin's answers, written out.
        for (path, parent) in [("/a/b/c", "/a/b"), ("/a/b/", "/a"), ("/a", "/"), ("/", "/"), ("a", ""), ("a/b", "a")] {
            #expect(path.deletingLastPathComponent == parent, "\(path)")
        }
        for path in ["/a/./b/../c", "/a//b/", "/../x", "/a/b/.."] {
            #expect(path.standardizingPath == FoundationReference.standardized(path), "\(path)")
        }
        let instant = Date(timeIntervalSince1970: 1_750_000_000.125)
        #expect(InternetTimestamp.string(instant) == FoundationReference.timestamp(instant))
        #expect(InternetTimestamp.date("2025-06-15T15:06:40.125Z") == instant && InternetTimestamp.date("2025-06-15T15:06:40Z") != nil)
    }
}
