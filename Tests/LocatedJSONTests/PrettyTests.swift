import LocatedJSON
import Testing

/// `pretty` is for people (the CLI prints decoded tokens with it, the console shows bodies) and must stay
/// the same JSON; `object(omittingNil:)` leaves unset members out rather than writing `null`.
@Suite struct PrettyTests {
    @Test func indentsOneMemberOrElementALine() throws {
        let value = try tree(#"{"b":[1,"x/y",{"c":null}],"a":{},"e":[],"d":true}"#)
        #expect(value.pretty() == """
        {
          "b": [
            1,
            "x/y",
            {
              "c": null
            }
          ],
          "a": {},
          "e": [],
          "d": true
        }
        """)
    }

    @Test func isTheSameJSONAsTheCompactText() throws {
        for text in [#"{"a":[[],{},[{"b":"\n\"é"}]],"n":-1.5e3}"#, "[]", "{}", #""text""#, "3", "null", #"{"s":["a","b"],"t":[1,2]}"#] {
            let value = try tree(text)
            #expect(try tree(value.pretty()).sameJSON(as: value), "\(text)")
            #expect(value.compactText == text)
        }
    }

    /// The 80 characters count the whole line: indentation, member name and the comma after the array.
    @Test func keepsAnArrayOnOneLineOnlyWhenItsWholeLineFits() {
        // `["x…x", "y…y"]` is 68 characters; `  "scopes": ` before it makes 80.
        let words = JSONValue.strings([String(repeating: "x", count: 30), String(repeating: "y", count: 30)])
        let fits = JSONValue.object([("scopes", words)]).pretty()
        #expect(fits.split(separator: "\n").map(\.count) == [1, 80, 1])
        #expect(JSONValue.object([("scopes!", words)]).pretty().split(separator: "\n").count == 6, "81 with a longer name")
        #expect(JSONValue.object([("scopes", words), ("n", .int(1))]).pretty().split(separator: "\n").count == 7, "81 with the comma")
        #expect(JSONValue.object([("scopes", words)]).pretty(indent: 1).split(separator: "\n").count == 6, "82 one level deeper")
    }

    @Test func leavesOutMembersWithoutAValue() {
        let absent: String? = nil
        let value = JSONValue.object(omittingNil: ["a": .int(1), "b": absent.map(JSONValue.string), "c": .null])
        #expect(value.compactText == #"{"a":1,"c":null}"#)
    }
}
