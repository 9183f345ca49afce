import IdentityPlatform
import LocatedJSON
import Testing
import EntraHTTP
import ExchangeKernel
@testable import Scenarios

/// A scenario's patterns: regexes bounded on the request path and refused with the reason and place,
/// globs over path segments.
@Suite struct ScenarioPatternTests {
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
