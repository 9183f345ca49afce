import Testing
import LocatedJSON

/// Bodies read as lenient readers read them, and JSON written for people.
@Suite struct LenientAndPrettyTests {
    static func lenient(_ text: String) -> JSONValue? { LocatedJSON.parse(lenientBody: Array(text.utf8)) }

    @Test func strictJSONReadsAsTheStrictParserReadsIt() throws {
        let text = #"{"z": [1, 2.50, "x"], "a": {"b": null}}"#
        let strict = try tree(text)
        #expect(Self.lenient(text) == strict)
    }

    @Test func trailingCommasCloseArraysAndObjects() {
        #expect(Self.lenient(#"{"a": [1, 2, ], "b": {"c": true,}, }"#)?.compactText == #"{"a":[1,2],"b":{"c":true}}"#)
        #expect(Self.lenient("[1,\n]")?.compactText == "[1]")
        #expect(parseProblems("[1,]").count == 1, "strict parsing still refuses them")
        for text in ["[,]", "{,}", "[1,,]", "{\"a\": 1,,}", "[1 2]"] { #expect(Self.lenient(text) == nil, "\(text)") }
    }

    @Test func aRepeatedMemberKeepsItsLastValueInThePlaceOfItsFirst() {
        let value = Self.lenient(#"{"a": 1, "b": {"x": 1, "x": [2]}, "a": 3}"#)
        #expect(value?.compactText == #"{"a":3,"b":{"x":[2]}}"#)
    }

    @Test func wideTextIsTranscoded() {
        let text = #"{"name": "Zoë 🙂", "n": 1}"#
        let utf16LE: [UInt8] = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE: [UInt8] = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE: [UInt8] = text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
        let utf32BE: [UInt8] = text.unicodeScalars.flatMap { scalar in (0..<4).reversed().map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
        let marked: [[UInt8]] = [[0xFF, 0xFE] + utf16LE, [0xFE, 0xFF] + utf16BE, [0xFF, 0xFE, 0, 0] + utf32LE, [0, 0, 0xFE, 0xFF] + utf32BE]
        for bytes in [utf16LE, utf16BE, utf32LE, utf32BE] + marked {
            #expect(LocatedJSON.parse(lenientBody: bytes)?["name"]?.string == "Zoë 🙂", "\(bytes.prefix(4))")
        }
        #expect(LocatedJSON.parse(lenientBody: Array(utf16LE.dropLast())) == nil, "half a code unit")
        let markedUTF8: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        #expect(LocatedJSON.parse(lenientBody: markedUTF8)?["n"]?.int == 1, "UTF-8's mark")
    }

    @Test func prettyIndentsAndKeepsShortScalarArraysOnOneLine() throws {
        let value = try tree(#"{"name": "a\"b", "codes": [1, 2.50, true, null], "empty": {}, "none": [], "rules": [{"n": 1}], "long": [1, 2, 3, 4, 5, 6, 7]}"#)
        #expect(value.pretty() == """
        {
          "name": "a\\"b",
          "codes": [1, 2.50, true, null],
          "empty": {},
          "none": [],
          "rules": [
            {
              "n": 1
            }
          ],
          "long": [
            1,
            2,
            3,
            4,
            5,
            6,
            7
          ]
        }
        """)
        #expect(JSONValue.object([("a", .int(1))]).pretty(indent: 1) == "{\n    \"a\": 1\n  }")
    }
}
