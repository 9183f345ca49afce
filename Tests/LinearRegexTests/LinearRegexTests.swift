import Foundation
import LinearRegex
import Testing

/// Scenario and user-flow regexes run on the request path, so matching must have a bound.
@Suite struct LinearRegexTests {
    /// The classic catastrophic pattern: a backtracking engine takes 2^n steps on `aaaa…!`.
    @Test func nestedQuantifiersCostLinearSteps() throws {
        let regex = try LinearRegex("^(a+)+$")
        var previous = 0
        for length in [1_000, 10_000, 100_000] {
            let hint = String(repeating: "a", count: length) + "!"
            let run = regex.run(hint)
            #expect(run.matched == false)
            // Each input scalar visits each program state at most twice (closure, then consumption).
            #expect(run.steps <= 2 * regex.programSize * (length + 2), "\(length): \(run.steps) steps")
            if previous > 0 { #expect(run.steps <= previous * 11, "ten times the input, about ten times the steps") }
            previous = run.steps
        }
        #expect(regex.matches(String(repeating: "a", count: 100_000)))
    }

    /// Same answers as ICU (NSRegularExpression, what scenarios used before) on the supported syntax.
    @Test func agreesWithICUOnTheSupportedSyntax() throws {
        let patterns = [
            "^login\\.", "\"nbf\"", "^[A-Za-z0-9._%+-]+@contoso\\.com$", "MSAL\\.(iOS|Python)/\\d+\\.\\d+", "a{2,3}b", "a{2}", "a{2,}",
            "(?i)^ADELE", "^\\s*$", "\\bcode\\b", "\\Bode", "x|y|", "^(ab|a)*c$", "[^/]+/v2\\.0", "[\\d-]+", "\\w+@\\w+", "colou?r",
            "^$", "a.c", "a\\.c", "[a-]", "\\x41\\u00e9", "^(a|b)*?c", "(?:ab)+", "(?<v>\\d+)x", "end$",
        ]
        let inputs = ["login.microsoftonline.com", "{\"nbf\":1}", "lee.gu@contoso.com", "MSAL.iOS/1.2 MSAL.Python/1.30", "aab", "aaaab", "ab",
                      "adele.vance", "  ", "", "the code is", "decode", "x", "ababc", "abac", "common/v2.0", "12-34", "a@b", "color", "colour",
                      "abc", "a.c", "]", "-", "Aé", "abbac", "ababab", "42x", "the end\n", "a{", "a{,2}", "zzz\nend", "é"]
        for pattern in patterns {
            let ours = try LinearRegex(pattern)
            let icu = try NSRegularExpression(pattern: pattern)
            for input in inputs {
                let expected = icu.firstMatch(in: input, range: NSRange(input.startIndex..., in: input)) != nil
                #expect(ours.matches(input) == expected, "/\(pattern)/ on \(input.debugDescription)")
            }
        }
    }
}
