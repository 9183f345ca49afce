import Testing
import LocatedJSON

@Suite struct ParserLimitsTests {
    @Test func nestingDeeperThanTheLimitIsAnError() {
        let depth = 513
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(parseProblems(text) == ["x.json:1:513: nesting is deeper than 512 levels"])
    }

    @Test func nestingAtTheLimitParses() {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(parseProblems(text) == [])
    }

    @Test func hugeNestingIsAnErrorNotACrash() {
        let text = String(repeating: "{\"a\":", count: 200_000)
        #expect(parseProblems(text).first?.hasSuffix("nesting is deeper than 512 levels") == true)
    }

    @Test func customLimits() {
        #expect(parseProblems("[[[1]]]", limits: JSONParseLimits(maximumDepth: 2)) == ["x.json:1:3: nesting is deeper than 2 levels"])
        #expect(parseProblems("[1, 2]", limits: JSONParseLimits(maximumBytes: 4)) ==
            ["x.json:1:1: file is too large (6 bytes; the limit is 4)"])
    }

    @Test func deepDocumentsValidateWithoutExhaustingTheStack() throws {
        let text = String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)
        let value = try tree(text)
        let recursive = try schema(##"{"type": ["array", "string"], "items": {"$ref": "#"}}"##)
        let problems = recursive.validate(value, file: "deep.json").map(\.description)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("deep.json:1:513: item [0]") == true)
        #expect(value.sameJSON(as: value))
    }
}
