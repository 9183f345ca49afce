import LocatedJSON
import Testing

/// `prettyText` is for people (the CLI prints decoded tokens with it) and must stay the same JSON;
/// `object(omittingNil:)` leaves unset members out rather than writing `null`.
@Suite struct PrettyTextTests {
    @Test func indentsOneMemberOrElementALine() throws {
        let value = try tree(#"{"b":[1,"x/y",{"c":null}],"a":{},"e":[],"d":true}"#)
        #expect(value.prettyText == """
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
        for text in [#"{"a":[[],{},[{"b":"\n\"é"}]],"n":-1.5e3}"#, "[]", "{}", #""text""#, "3", "null"] {
            let value = try tree(text)
            #expect(try tree(value.prettyText).sameJSON(as: value), "\(text)")
            #expect(value.compactText == text)
        }
    }

    @Test func leavesOutMembersWithoutAValue() {
        let absent: String? = nil
        let value = JSONValue.object(omittingNil: ["a": .int(1), "b": absent.map(JSONValue.string), "c": .null])
        #expect(value.compactText == #"{"a":1,"c":null}"#)
    }
}
