import Foundation
import Testing
import LocatedJSON

/// A schema that uses anything outside the supported subset is refused when loaded, with the
/// location of the offending keyword, so a published rule is never silently unenforced.
@Suite struct SchemaLoadingTests {
    @Test func unsupportedKeywordIsRefused() {
        #expect(schemaProblems("{\n  \"type\": \"object\",\n  \"patternProperties\": {}\n}") ==
            [#"schema.json:3:3: unsupported schema keyword "patternProperties""#])
    }

    @Test func annotationsAndExtensionsAreAccepted() {
        #expect(schemaProblems(#"{"$schema": "x", "$id": "y", "title": "t", "description": "d", "default": 1, "examples": [], "x-note": 1, "$comment": "c"}"#) == [])
    }

    @Test func malformedKeywordValues() {
        #expect(schemaProblems(#"{"type": "strng"}"#) ==
            [#"schema.json:1:10: "type" must be a type name or an array of them (null, boolean, object, array, number, string, integer)"#])
        #expect(schemaProblems(#"{"minLength": -1, "required": "a", "pattern": "(", "format": "ipv4"}"#) == [
            #"schema.json:1:15: "minLength" must be a non-negative integer"#,
            #"schema.json:1:31: "required" must be an array of strings"#,
            #"schema.json:1:47: "pattern" is not a valid regular expression: ("#,
            #"schema.json:1:62: "format" must be one of: "uuid", "uri", "email", "date-time""#,
        ])
        #expect(schemaProblems(#"{"oneOf": []}"#) == [#"schema.json:1:11: "oneOf" must be a non-empty array of schemas"#])
        #expect(schemaProblems(#"{"properties": {"a": 3}}"#) == [#"schema.json:1:22: a schema must be an object or a boolean"#])
    }

    @Test func danglingReferenceIsRefused() {
        #expect(schemaProblems(##"{"items": {"$ref": "#/$defs/missing"}}"##) ==
            [##"schema.json:1:20: $ref "#/$defs/missing" does not point into this schema"##])
        #expect(schemaProblems(##"{"$ref": "other.json#/a"}"##) ==
            [##"schema.json:1:10: "$ref" must be a local reference such as "#/$defs/name""##])
    }

    @Test func schemaSyntaxErrorsAreLocatedInTheSchemaFile() {
        #expect(schemaProblems("{\"type\": }") == [#"schema.json:1:10: expected a value for "type", found '}'"#])
    }

    @Test func schemaLoadsFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locatedjson-\(UUID().uuidString).json").path
        try Data(#"{"type": "integer"}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try JSONSchema(file: path)
        #expect(loaded.validate(try tree("1.5"), file: "n.json").map(\.description) == [#"n.json:1:1: the document must be an integer, found number 1.5"#])
    }

    @Test func missingFileIsAProblemNamingIt() {
        #expect(throws: JSONProblems([JSONProblem(file: "/nonexistent/s.json", location: .startOfFile, path: "", message: "cannot read the file")])) {
            try JSONSchema(file: "/nonexistent/s.json")
        }
    }
}
