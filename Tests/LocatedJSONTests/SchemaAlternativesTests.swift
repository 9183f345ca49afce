import Testing
import LocatedJSON

/// oneOf / anyOf report the alternative the author meant, and $ref resolves local definitions.
@Suite struct SchemaAlternativesTests {
    /// A scenario action: the "type" property tells the alternatives apart.
    static let actionSchema = #"""
    {
      "$defs": {
        "reply": {
          "type": "object",
          "required": ["type", "status"],
          "additionalProperties": false,
          "properties": {
            "type": {"const": "reply"},
            "status": {"type": "integer", "minimum": 100, "maximum": 599},
            "body": {"type": "string"}
          }
        },
        "delay": {
          "type": "object",
          "required": ["type", "seconds"],
          "additionalProperties": false,
          "properties": {
            "type": {"const": "delay"},
            "seconds": {"type": "number", "minimum": 0}
          }
        },
        "action": {"oneOf": [{"$ref": "#/$defs/reply"}, {"$ref": "#/$defs/delay"}]}
      },
      "type": "object",
      "properties": {
        "actions": {"type": "array", "items": {"$ref": "#/$defs/action"}}
      }
    }
    """#

    func problems(_ document: String) throws -> [String] {
        try validationProblems(document, against: Self.actionSchema, file: "scenario.json")
    }

    @Test func matchingBranchPasses() throws {
        #expect(try problems(#"{"actions": [{"type": "reply", "status": 200}, {"type": "delay", "seconds": 1.5}]}"#) == [])
    }

    @Test func discriminatorSelectsTheBranchToReport() throws {
        #expect(try problems("{\"actions\": [\n  {\"type\": \"delay\", \"seconds\": \"2\"}\n]}") ==
            [#"scenario.json:2:32: "seconds" must be a number, found string "2""#])
        #expect(try problems("{\"actions\": [\n  {\"type\": \"reply\", \"status\": 700, \"seconds\": 1}\n]}") == [
            #"scenario.json:2:31: "status" must be at most 599, found 700"#,
            #"scenario.json:2:36: unknown field "seconds" (expected one of: body, status, type)"#,
        ])
    }

    @Test func unknownDiscriminatorValueListsTheAllowedOnes() throws {
        #expect(try problems("{\"actions\": [\n  {\"type\": \"sleep\", \"seconds\": 1}\n]}") ==
            [#"scenario.json:2:12: "type" must be one of: "reply", "delay", found "sleep""#])
    }

    @Test func missingDiscriminatorIsReportedAtTheObject() throws {
        #expect(try problems("{\"actions\": [\n  {\"seconds\": 1}\n]}") ==
            [#"scenario.json:2:3: missing required field "type" (one of: "reply", "delay")"#])
    }

    @Test func typeSelectsTheBranchWithoutDiscriminator() throws {
        let schemaText = #"{"oneOf": [{"type": "string", "minLength": 3}, {"type": "array", "items": {"type": "string"}}]}"#
        #expect(try validationProblems(#"["a", 1]"#, against: schemaText) == [#"config.json:1:7: item [1] must be a string, found number 1"#])
        #expect(try validationProblems(#""ab""#, against: schemaText) == [#"config.json:1:1: the document must be at least 3 characters long, found 2"#])
        #expect(try validationProblems("12", against: schemaText) == [#"config.json:1:1: the document must be a string or an array, found number 12"#])
    }

    @Test func fewestErrorsWinsThenASummary() throws {
        let schemaText = #"""
        {"anyOf": [
          {"type": "object", "required": ["a", "b"]},
          {"type": "object", "required": ["c", "d"]}
        ]}
        """#
        #expect(try validationProblems(#"{"a": 1}"#, against: schemaText) == [#"config.json:1:1: missing required field "b""#])
        #expect(try validationProblems(#"{"x": 1}"#, against: #"{"anyOf": [{"required": ["a"]}, {"required": ["c"]}]}"#) ==
            [#"config.json:1:1: the document does not match any allowed alternative: (1) missing required field "a"; (2) missing required field "c""#])
    }

    @Test func oneOfRejectsAValueMatchingSeveralAlternatives() throws {
        let schemaText = #"{"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}"#
        #expect(try validationProblems("5", against: schemaText) == [#"config.json:1:1: the document matches alternatives 1 and 2 but must match exactly one"#])
        #expect(try validationProblems("-5", against: schemaText) == [])
        #expect(try validationProblems(#"{"anyOf": [{"type": "integer"}, {"minimum": 0}]}"#, against: "true").isEmpty)
    }

    @Test func allOfReportsEveryBranch() throws {
        let schemaText = #"{"allOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}}]}"#
        #expect(try validationProblems(#"{"b": 1}"#, against: schemaText) == [
            #"config.json:1:1: missing required field "a""#,
            #"config.json:1:7: "b" must be a string, found number 1"#,
        ])
    }

    @Test func recursiveReferences() throws {
        let schemaText = #"""
        {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "additionalProperties": false,
          "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}
        """#
        #expect(try validationProblems(#"{"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}"#, against: schemaText) ==
            [#"config.json:1:64: "name" must be a string, found number 3"#])
    }

    @Test func referenceToTheRootAndToNestedProperties() throws {
        let schemaText = ##"{"properties": {"id": {"type": "string"}, "next": {"$ref": "#"}, "otherId": {"$ref": "#/properties/id"}}}"##
        #expect(try validationProblems(#"{"next": {"next": {"id": 1}}, "otherId": 2}"#, against: schemaText) == [
            #"config.json:1:26: "id" must be a string, found number 1"#,
            #"config.json:1:42: "otherId" must be a string, found number 2"#,
        ])
    }

    @Test func referenceLoopsAreReportedNotFollowedForever() throws {
        let schemaText = ##"{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}"##
        #expect(try validationProblems("1", against: schemaText).first?.contains("loops without reaching a value") == true)
    }
}
