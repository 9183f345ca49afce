import Testing
import LocatedJSON

/// Keyword by keyword: each violation is located at the value concerned and says what was expected.
@Suite struct SchemaValidationTests {
    static let appSchema = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "description": "An application registration",
      "required": ["clientId", "displayName"],
      "additionalProperties": false,
      "properties": {
        "clientId": {"type": "string", "format": "uuid"},
        "displayName": {"type": "string", "minLength": 1, "maxLength": 10},
        "isPublicClient": {"type": "boolean", "default": false},
        "signInAudience": {"enum": ["AzureADMyOrg", "AzureADMultipleOrgs"]},
        "tokenLifetime": {"type": "integer", "minimum": 300, "maximum": 86400},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "redirectUris": {"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
        "owner": {"type": "string", "format": "email"},
        "created": {"type": "string", "format": "date-time"},
        "tenant": {"type": ["string", "null"], "pattern": "^[a-z]+$"},
        "version": {"const": 2}
      }
    }
    """#

    func problems(_ document: String) throws -> [String] {
        try validationProblems(document, against: Self.appSchema)
    }

    let valid = #"{"clientId": "6731de76-14a6-49ae-97bc-6eba6914391e", "displayName": "App""#

    @Test func conformingDocumentHasNoProblems() throws {
        let document = valid + #", "isPublicClient": true, "signInAudience": "AzureADMyOrg", "tokenLifetime": 3600, "ratio": 0.5, "redirectUris": ["https://localhost/cb", "msauth.com.x://auth"], "owner": "a@b.c", "created": "2024-02-29T23:59:60.5+01:00", "tenant": null, "version": 2.0}"#
        #expect(try problems(document) == [])
    }

    @Test func wrongTypeNamesWhatWasFound() throws {
        #expect(try problems("{\"clientId\": \"6731de76-14a6-49ae-97bc-6eba6914391e\", \"displayName\": \"A\",\n  \"isPublicClient\": \"yes\"}") ==
            [#"config.json:2:21: "isPublicClient" must be a boolean, found string "yes""#])
        #expect(try problems(valid + #", "tokenLifetime": 3600.5}"#) ==
            [#"config.json:1:93: "tokenLifetime" must be an integer, found number 3600.5"#])
        #expect(try problems(valid + #", "tenant": 5}"#) ==
            [#"config.json:1:86: "tenant" must be a string or null, found number 5"#])
        #expect(try problems(valid + #", "redirectUris": {}}"#) ==
            [#"config.json:1:92: "redirectUris" must be an array, found an object"#])
        #expect(try validationProblems("[]", against: Self.appSchema) == [#"config.json:1:1: the document must be an object, found an array"#])
    }

    @Test func unknownFieldListsTheExpectedNamesSorted() throws {
        #expect(try validationProblems(#"{"match": 1, "matchs": 2}"#, against: #"{"properties": {"match": {}, "times": {}, "action": {}}, "additionalProperties": false}"#, file: "scenario.json") ==
            [#"scenario.json:1:14: unknown field "matchs" (expected one of: action, match, times)"#])
        #expect(try validationProblems(#"{"a": 1}"#, against: #"{"additionalProperties": false}"#) ==
            [#"config.json:1:2: unknown field "a" (this object takes no fields)"#])
    }

    @Test func additionalPropertiesSchemaValidatesExtraMembers() throws {
        let schemaText = #"{"properties": {"name": {"type": "string"}}, "additionalProperties": {"type": "integer"}}"#
        #expect(try validationProblems(#"{"name": "x", "a": 1, "b": "2"}"#, against: schemaText) ==
            [#"config.json:1:28: "b" must be an integer, found string "2""#])
    }

    @Test func missingRequiredIsLocatedAtTheEnclosingObject() throws {
        #expect(try problems("{\n  \"isPublicClient\": true\n}") == [
            #"config.json:1:1: missing required field "clientId""#,
            #"config.json:1:1: missing required field "displayName""#,
        ])
        let nested = #"{"properties": {"app": {"type": "object", "required": ["id"]}}}"#
        #expect(try validationProblems("{\n  \"app\": {}\n}", against: nested) == [#"config.json:2:10: missing required field "id""#])
    }

    @Test func enumViolationListsAllowedValues() throws {
        #expect(try problems(valid + #", "signInAudience": "AzureADMyorg"}"#) ==
            [#"config.json:1:94: "signInAudience" must be one of: "AzureADMyOrg", "AzureADMultipleOrgs", found "AzureADMyorg""#])
    }

    @Test func constViolation() throws {
        #expect(try problems(valid + #", "version": 3}"#) == [#"config.json:1:87: "version" must be 2, found 3"#])
    }

    @Test func numericBounds() throws {
        #expect(try problems(valid + #", "tokenLifetime": 299}"#) == [#"config.json:1:93: "tokenLifetime" must be at least 300, found 299"#])
        #expect(try problems(valid + #", "tokenLifetime": 86401}"#) == [#"config.json:1:93: "tokenLifetime" must be at most 86400, found 86401"#])
        #expect(try problems(valid + #", "ratio": 0}"#) == [#"config.json:1:85: "ratio" must be greater than 0, found 0"#])
        #expect(try problems(valid + #", "ratio": 1.0}"#) == [#"config.json:1:85: "ratio" must be less than 1, found 1.0"#])
    }

    @Test func stringLengthsCountCharacters() throws {
        let base = #"{"clientId": "6731de76-14a6-49ae-97bc-6eba6914391e", "displayName": "#
        #expect(try problems(base + #""""# + "}") == [#"config.json:1:69: "displayName" must be at least 1 character long, found 0"#])
        #expect(try problems(base + #""ééééééééééé""# + "}") == [#"config.json:1:69: "displayName" must be at most 10 characters long, found 11"#])
        #expect(try problems(base + #""éééééééééé""# + "}") == [])
    }

    @Test func patternViolation() throws {
        #expect(try problems(valid + #", "tenant": "Contoso"}"#) == [#"config.json:1:86: "tenant" must match the pattern ^[a-z]+$, found "Contoso""#])
    }

    @Test func formats() throws {
        #expect(try validationProblems(#"{"clientId": "not-a-uuid", "displayName": "A"}"#, against: Self.appSchema) ==
            [#"config.json:1:14: "clientId" must be a UUID (8-4-4-4-12 hexadecimal digits), found "not-a-uuid""#])
        #expect(try problems(valid + #", "owner": "alice"}"#) == [#"config.json:1:85: "owner" must be an email address, found "alice""#])
        #expect(try problems(valid + #", "created": "2023-02-29T10:00:00Z"}"#) ==
            [#"config.json:1:87: "created" must be an RFC 3339 date-time (e.g. 2024-01-31T12:00:00Z), found "2023-02-29T10:00:00Z""#])
        #expect(try problems(valid + #", "created": "2024-01-31 10:00:00Z"}"#).count == 1)
        #expect(try problems(valid + #", "created": "2024-01-31T10:00:00"}"#).count == 1)
        #expect(try problems(valid + #", "redirectUris": ["localhost/cb", "http://a b"]}"#) == [
            #"config.json:1:93: "redirectUris"[0] must be an absolute URI (scheme:...), found "localhost/cb""#,
            #"config.json:1:109: "redirectUris"[1] must be an absolute URI (scheme:...), found "http://a b""#,
        ])
    }

    @Test func arrayBoundsAndUniqueness() throws {
        #expect(try problems(valid + #", "redirectUris": []}"#) == [#"config.json:1:92: "redirectUris" must have at least 1 item, found 0"#])
        #expect(try problems(valid + #", "redirectUris": ["a:1", "a:2", "a:3", "a:4"]}"#) ==
            [#"config.json:1:92: "redirectUris" must have at most 3 items, found 4"#])
        #expect(try problems(valid + #", "redirectUris": ["a:1", "a:2", "a:1"]}"#) ==
            [#"config.json:1:107: "redirectUris" must not contain duplicates: item [2] repeats item [0] ("a:1")"#])
    }

    @Test func uniqueItemsComparesJSONValues() throws {
        let unique = #"{"uniqueItems": true}"#
        #expect(try validationProblems(#"[1, 1.0]"#, against: unique).count == 1)
        #expect(try validationProblems(#"[{"a": 1, "b": 2}, {"b": 2, "a": 1}]"#, against: unique).count == 1)
        #expect(try validationProblems(#"[1, "1", true, null, [1], {"a": 1}]"#, against: unique) == [])
    }

    @Test func objectSizeBounds() throws {
        let bounded = #"{"properties": {"claims": {"minProperties": 1, "maxProperties": 2}}}"#
        #expect(try validationProblems(#"{"claims": {}}"#, against: bounded) == [#"config.json:1:12: "claims" must have at least 1 field, found 0"#])
        #expect(try validationProblems(#"{"claims": {"a": 1, "b": 2, "c": 3}}"#, against: bounded) ==
            [#"config.json:1:12: "claims" must have at most 2 fields, found 3"#])
    }

    @Test func booleanSchemas() throws {
        #expect(try validationProblems(#"{"a": 1}"#, against: "true") == [])
        #expect(try validationProblems(#"{"a": 1}"#, against: #"{"properties": {"a": false}}"#) == [#"config.json:1:7: "a" is not allowed here"#])
    }

    @Test func problemsCarryJSONPointers() throws {
        let compiled = try schema(Self.appSchema)
        let value = try tree(valid + #", "redirectUris": ["x"]}"#)
        #expect(compiled.validate(value, file: "c.json").map(\.path) == ["/redirectUris/0"])
    }
}
