import LinearRegex
import Foundation
import IdentityPlatform
import LocatedJSON
import Testing
import EntraHTTP
import ExchangeKernel
@testable import Scenarios

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

    @Test func tenCatastrophicRulesOnALongLoginHintAnswerInBoundedSteps() throws {
        let rules = (0..<10).map { _ in #"{"match": {"endpoint": "authorize", "parameters": {"login_hint": {"regex": "^(a+)+$"}}}, "action": {"delay": 1}, "times": "always"}"# }
        let scenario = try Harness.scenario(#"{"name": "redos", "description": "d", "rules": [\#(rules.joined(separator: ","))]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "redos", to: .server)
        // 40 a's and a "!": 2^40 backtracking steps per rule under NSRegularExpression.
        let hint = String(repeating: "a", count: 40) + "!"
        let response = harness.send(Harness.authorize(user: hint))
        #expect(response.status.code < 500)
        #expect(response.directives.delay == nil, "no rule matched")
        let pattern = try TextPattern(regex: "^(a+)+$")
        #expect(!pattern.matches(hint))
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

    @Test func backtrackingOnlySyntaxIsRefusedWithTheReason() {
        let refused: [(String, String)] = [
            ("(a)\\1", "backreferences need backtracking; not supported (at character 4)"),
            ("foo(?=bar)", "lookaround needs backtracking; not supported (at character 4)"),
            ("(?<!x)y", "lookaround needs backtracking; not supported (at character 1)"),
            ("(?>a+)b", "atomic groups need backtracking; not supported (at character 1)"),
            ("a++", "possessive quantifiers need backtracking; not supported (at character 3)"),
            ("x(?m)y", "inline flags are supported only as a leading (?i) (at character 2)"),
            ("(a{1000}){1000}", "the pattern expands to more than 20000 states (lower the repetition counts) (at character 1)"),
            ("a{5000}", "a repetition count above 1000 (at character 2)"),
            ("*a", "\"*\" has nothing to repeat (at character 1)"),
            ("(ab", "unclosed \"(\" (at character 1)"),
            ("ab)", "unbalanced \")\" (at character 3)"),
            ("[z-a]", "the range z-a is backwards (at character 5)"),
            ("\\q", "unknown escape \"\\q\" (at character 1)"),
            (String(repeating: "(", count: 100) + String(repeating: ")", count: 100), "groups nested deeper than 64 (at character 65)"),
        ]
        for (pattern, reason) in refused {
            #expect(throws: PatternError(message: "invalid regular expression \"\(pattern)\": \(reason)"), "\(pattern)") {
                try TextPattern(regex: pattern)
            }
        }
    }

    @Test func aRefusedPatternIsReportedAtItsLineAndColumn() {
        let text = """
        {"name": "r", "description": "d",
        "rules": [{"match": {"parameters": {"login_hint": {"regex": "^(\\\\w+)\\\\1$"}}}, "action": {"delay": 1}}]}
        """
        guard case .failure(let failure) = ScenarioLibrary.parse(Array(text.utf8), file: "s.json") else {
            Issue.record("a backreference was accepted")
            return
        }
        #expect(failure.problems.map(\.description) == [#"s.json:2:61: invalid regular expression "^(\w+)\1$": backreferences need backtracking; not supported (at character 7)"#])
    }

    @Test func globsStillMatchPathSegments() throws {
        let glob = try TextPattern(glob: "/*/oauth2/v2.0/token")
        #expect(glob.matches("/common/oauth2/v2.0/token"))
        #expect(!glob.matches("/a/b/oauth2/v2.0/token"))
        #expect(try TextPattern(glob: "/v1.0/**").matches("/v1.0/me/photo/$value"))
        #expect(try TextPattern(glob: "/(x)+[y]?").matches("/(x)+[y]a"))
    }
}
