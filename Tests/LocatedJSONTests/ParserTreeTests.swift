import Testing
import LocatedJSON

/// The located tree: values, member order, and the line/column of every node.
@Suite struct ParserTreeTests {
    @Test func scalarsAndTheirLocations() throws {
        let value = try tree("{\n  \"s\": \"x\",\n  \"n\": -12.5e1,\n  \"t\": true,\n  \"f\": false,\n  \"z\": null\n}")
        #expect(value.location == SourceLocation(line: 1, column: 1, offset: 0))
        #expect(value["s"]?.string == "x")
        #expect(value["s"]?.location.description == "2:8")
        #expect(value.member("s")?.keyLocation.description == "2:3")
        #expect(value["n"]?.number?.literal == "-12.5e1")
        #expect(value["n"]?.number?.double == -125)
        #expect(value["t"]?.bool == true)
        #expect(value["f"]?.bool == false)
        #expect(value["z"]?.isNull == true)
        #expect(value["z"]?.location.description == "6:8")
    }

    @Test func membersKeepSourceOrder() throws {
        let value = try tree(#"{"z": 1, "a": 2, "m": 3}"#)
        #expect(value.members?.map(\.key) == ["z", "a", "m"])
    }

    @Test func arraysLocateEachElement() throws {
        let value = try tree("[1,\n [2, {}],\n \"x\"]")
        #expect(value.array?.count == 3)
        #expect(value[1]?.location.description == "2:2")
        #expect(value[1]?[1]?.location.description == "2:6")
        #expect(value[2]?.location.description == "3:2")
        #expect(value[3] == nil)
    }

    @Test func integersStayExact() throws {
        let value = try tree("[9007199254740993, 1.0, 1e2, -0]")
        #expect(value[0]?.number?.int64 == 9_007_199_254_740_993)
        #expect(value[1]?.number?.int64 == nil)
        #expect(value[1]?.number?.isInteger == true)
        #expect(value[2]?.number?.isIntegerLiteral == false)
        #expect(value[3]?.number?.int64 == 0)
    }

    @Test func escapesAreDecoded() throws {
        let value = try tree(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00", "\u0000"]"#)
        #expect(value[0]?.string == "a\"b\\c/d\u{8}\u{C}\n\r\t")
        #expect(value[1]?.string == "é中")
        #expect(value[2]?.string == "😀")
        #expect(value[3]?.string == "\u{0}")
    }

    @Test func crlfLineEndingsCountAsOneLine() throws {
        let value = try tree("{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}")
        #expect(value["b"]?.location.description == "3:8")
        #expect(parseProblems("{\r\n  \"a\": 1,\r\n}") == ["x.json:2:9: trailing comma is not allowed before '}'"])
        #expect(parseProblems("{\r\"a\": x}") == [#"x.json:2:6: invalid literal 'x', expected a value for "a" (true, false, null, a number, a string, an array or an object)"#])
    }

    @Test func tabsCountAsOneColumn() throws {
        let value = try tree("{\n\t\t\"a\":\t1}")
        #expect(value["a"]?.location.description == "2:8")
        #expect(value.member("a")?.keyLocation.description == "2:3")
    }

    @Test func multiByteCharactersCountAsOneColumn() throws {
        let value = try tree(#"{"é中😀": "ü", "k": 1}"#)
        #expect(value["é中😀"]?.location.description == "1:9")
        #expect(value["k"]?.location.description == "1:19")
        #expect(parseProblems(#"{"é": "ü" x}"#) == [#"x.json:1:11: expected ',' or '}', found 'x'"#])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8)
        let value = try LocatedJSON.parse(bytes, file: "x.json")
        #expect(value["a"]?.location.description == "1:7")
    }

    @Test func duplicateKeysAreAllReported() {
        #expect(parseProblems("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2},\n \"a\": 3}") == [
            #"x.json:2:16: duplicate key "c" (first defined at 2:8)"#,
            #"x.json:3:2: duplicate key "a" (first defined at 1:2)"#,
        ])
    }

    @Test func duplicateKeysInLargeObjectsAreFound() {
        let members = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        #expect(parseProblems("{\(members), \"k3\": 0, \"k39\": 0}") == [
            "x.json:1:422: duplicate key \"k3\" (first defined at 1:29)",
            "x.json:1:431: duplicate key \"k39\" (first defined at 1:411)",
        ])
    }

    @Test func duplicateKeyProblemsCarryTheirPath() {
        do {
            _ = try LocatedJSON.parse(Array(#"{"b": {"c": 1, "c": 2}}"#.utf8), file: "x.json")
            Issue.record("expected a duplicate key problem")
        } catch {
            #expect(error.problems.map(\.path) == ["/b"])
        }
    }

    @Test func emptyContainers() throws {
        let value = try tree(#"{"a": [], "b": {}, "c": [ ], "d": { }}"#)
        #expect(value["a"]?.array?.isEmpty == true)
        #expect(value["b"]?.members?.isEmpty == true)
        #expect(value["d"]?.location.description == "1:35")
    }

    @Test func scalarDocuments() throws {
        #expect(try tree(" 42 ").number?.literal == "42")
        #expect(try tree("\"s\"").string == "s")
        #expect(try tree("null").isNull)
    }

    @Test func pointersAndCodingPathsLeadToValues() throws {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init(intValue: Int) { self.stringValue = "Index \(intValue)"; self.intValue = intValue }
        }
        let value = try tree("{\"apps\": [\n {\"a/b\": 1, \"t~\": 2}]}")
        #expect(value.value(atPointer: "/apps/0/a~1b")?.location.description == "2:10")
        #expect(value.value(atPointer: "/apps/0/t~0")?.number?.literal == "2")
        #expect(value.value(atPointer: "")?.location.description == "1:1")
        #expect(value.value(atPointer: "/apps/1") == nil)
        #expect(value.value(atPointer: "apps") == nil)
        let path: [any CodingKey] = [Key(stringValue: "apps"), Key(intValue: 0), Key(stringValue: "a/b")]
        #expect(value.value(atCodingPath: path)?.location.description == "2:10")
    }

    @Test func sameJSONIgnoresLocationsAndMemberOrder() throws {
        let left = try tree(#"{"a": [1, "x"], "b": null}"#)
        let right = try tree("{\"b\":null,\n\"a\":[1.0,\"x\"]}")
        #expect(left.sameJSON(as: right))
        #expect(left != right)
        #expect(!left.sameJSON(as: try tree(#"{"a": [1, "y"], "b": null}"#)))
    }

    @Test func largeDocumentOnOneLineParses() throws {
        let element = #"{"id": "00000000-0000-0000-0000-000000000000", "n": 12345, "tags": ["a", "b\n"]}"#
        let text = "[" + Array(repeating: element, count: 20_000).joined(separator: ",") + "]"
        let value = try tree(text)
        #expect(value.array?.count == 20_000)
        #expect(value[19_999]?.location.column == 1 + 1 + 19_999 * (element.count + 1))
    }
}
