import Testing
import LocatedJSON

/// All problems of a file come back at once, in document order, each rendered on its own line.
@Suite struct SchemaReportingTests {
    static let userSchema = #"""
    {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "users": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["id", "userPrincipalName"],
            "additionalProperties": false,
            "properties": {
              "id": {"type": "string", "format": "uuid"},
              "userPrincipalName": {"type": "string", "format": "email"},
              "accountEnabled": {"type": "boolean"}
            }
          }
        }
      }
    }
    """#

    static let document = """
    {
      "users": [
        {
          "id": "not-a-uuid",
          "userPrincipalName": "alice@contoso.com",
          "acountEnabled": true
        },
        {
          "userPrincipalName": 42
        }
      ],
      "groups": []
    }
    """

    @Test func everyProblemIsReportedInDocumentOrder() throws {
        #expect(try validationProblems(Self.document, against: Self.userSchema, file: "users.json") == [
            #"users.json:4:13: "id" must be a UUID (8-4-4-4-12 hexadecimal digits), found "not-a-uuid""#,
            #"users.json:6:7: unknown field "acountEnabled" (expected one of: accountEnabled, id, userPrincipalName)"#,
            #"users.json:8:5: missing required field "id""#,
            #"users.json:9:28: "userPrincipalName" must be a string, found number 42"#,
            #"users.json:12:3: unknown field "groups" (expected one of: users)"#,
        ])
    }

    @Test func validateThrowsAllProblemsRenderedOnePerLine() throws {
        let compiled = try schema(Self.userSchema)
        do {
            _ = try LocatedJSON.validate(Array(Self.document.utf8), file: "users.json", schema: compiled)
            Issue.record("expected problems")
        } catch {
            #expect(error.problems.count == 5)
            #expect(error.description.split(separator: "\n").count == 5)
            #expect(error.description.hasPrefix("users.json:4:13: "))
            #expect(error.problems.map(\.path) == ["/users/0/id", "/users/0/acountEnabled", "/users/1", "/users/1/userPrincipalName", "/groups"])
        }
    }

    @Test func syntaxErrorStopsBeforeValidation() throws {
        let compiled = try schema(Self.userSchema)
        #expect(throws: JSONProblems([JSONProblem(file: "users.json", location: SourceLocation(line: 1, column: 13, offset: 12),
                                                  path: "/users", message: "trailing comma is not allowed before ']'")])) {
            try LocatedJSON.validate(Array(#"{"users": [1,]}"#.utf8), file: "users.json", schema: compiled)
        }
    }

    @Test func problemRendersAsFileLineColumnMessage() {
        let problem = JSONProblem(file: "config.json", location: SourceLocation(line: 12, column: 15, offset: 200),
                                  path: "/apps/0/isPublicClient", message: #""isPublicClient" must be a boolean, found string "yes""#)
        #expect(problem.description == #"config.json:12:15: "isPublicClient" must be a boolean, found string "yes""#)
        #expect(JSONProblems([problem, problem]).description == problem.description + "\n" + problem.description)
    }
}
