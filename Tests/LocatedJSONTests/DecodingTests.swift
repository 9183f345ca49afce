import Foundation
import Testing
import LocatedJSON

/// Parse, validate, decode: a Codable value comes out, or located problems do.
@Suite struct DecodingTests {
    struct Config: Codable, Equatable {
        enum Audience: String, Codable { case myOrg = "AzureADMyOrg", multipleOrgs = "AzureADMultipleOrgs" }
        struct App: Codable, Equatable {
            var clientId: String
            var isPublicClient: Bool
            var redirectUris: [String]
            var audience: Audience?
        }
        var tenantId: String
        var tokenLifetime: Int
        var apps: [App]
    }

    static let schemaText = #"""
    {
      "type": "object",
      "required": ["tenantId", "tokenLifetime", "apps"],
      "additionalProperties": false,
      "properties": {
        "tenantId": {"type": "string", "format": "uuid"},
        "tokenLifetime": {"type": "integer", "minimum": 60},
        "apps": {"type": "array", "items": {"$ref": "#/$defs/app"}}
      },
      "$defs": {
        "app": {
          "type": "object",
          "required": ["clientId", "isPublicClient", "redirectUris"],
          "additionalProperties": false,
          "properties": {
            "clientId": {"type": "string"},
            "isPublicClient": {"type": "boolean"},
            "redirectUris": {"type": "array", "items": {"type": "string", "format": "uri"}},
            "audience": {"enum": ["AzureADMyOrg", "AzureADMultipleOrgs"]}
          }
        }
      }
    }
    """#

    static let configText = """
    {
      "tenantId": "72f988bf-86f1-41af-91ab-2d7cd011db47",
      "tokenLifetime": 3600,
      "apps": [
        {"clientId": "app-1", "isPublicClient": true, "redirectUris": ["msauth.com.example://auth"], "audience": "AzureADMyOrg"}
      ]
    }
    """

    @Test func roundTripThroughTheSchema() throws {
        let compiled = try schema(Self.schemaText)
        let config = try LocatedJSON.decode(Config.self, from: Array(Self.configText.utf8), file: "config.json", schema: compiled)
        #expect(config == Config(tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47", tokenLifetime: 3600, apps: [
            .init(clientId: "app-1", isPublicClient: true, redirectUris: ["msauth.com.example://auth"], audience: .myOrg),
        ]))
        let reencoded = try JSONEncoder().encode(config)
        #expect(try LocatedJSON.decode(Config.self, from: Array(reencoded), file: "again.json", schema: compiled) == config)
    }

    @Test func schemaProblemsComeBeforeDecoding() throws {
        let compiled = try schema(Self.schemaText)
        let text = Self.configText.replacingOccurrences(of: "\"isPublicClient\": true", with: "\"isPublicClient\": \"yes\"")
        #expect(throws: JSONProblems.self) {
            try LocatedJSON.decode(Config.self, from: Array(text.utf8), file: "config.json", schema: compiled)
        }
        do {
            _ = try LocatedJSON.decode(Config.self, from: Array(text.utf8), file: "config.json", schema: compiled)
        } catch {
            #expect(error.description == #"config.json:5:45: "isPublicClient" must be a boolean, found string "yes""#)
        }
    }

    func decodingProblems(_ text: String) -> [String] {
        do {
            _ = try LocatedJSON.decode(Config.self, from: Array(text.utf8), file: "config.json")
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func typeMismatchIsLocatedThroughTheCodingPath() {
        let text = Self.configText.replacingOccurrences(of: "[\"msauth.com.example://auth\"]", with: "[\"a:b\", 7]")
        #expect(decodingProblems(text) == [#"config.json:5:75: "redirectUris"[1] must be a string, found number 7"#])
    }

    @Test func missingKeyIsLocatedAtTheObject() {
        let text = Self.configText.replacingOccurrences(of: "\"clientId\": \"app-1\", ", with: "")
        #expect(decodingProblems(text) == [#"config.json:5:5: missing required field "clientId""#])
    }

    @Test func nullForANonOptionalValue() {
        let text = Self.configText.replacingOccurrences(of: "3600", with: "null")
        #expect(decodingProblems(text) == [#"config.json:3:20: "tokenLifetime" must be an integer, found null"#])
    }

    @Test func invalidEnumValueIsLocated() {
        let text = Self.configText.replacingOccurrences(of: "\"AzureADMyOrg\"", with: "\"Everyone\"")
        let problems = decodingProblems(text)
        #expect(problems == [#"config.json:5:110: "audience" has an invalid value "Everyone" (Cannot initialize Audience from invalid String value Everyone)"#])
    }

    @Test func syntaxErrorsAreReportedByTheParserNotTheDecoder() {
        #expect(decodingProblems("{\"tenantId\": \"x\",}") == ["config.json:1:17: trailing comma is not allowed before '}'"])
    }

    @Test func byteOrderMarkIsAcceptedByParserAndDecoder() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(Self.configText.utf8)
        let config = try LocatedJSON.decode(Config.self, from: bytes, file: "bom.json", schema: try schema(Self.schemaText))
        #expect(config.tokenLifetime == 3600)
    }

    @Test func decodeFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locatedjson-\(UUID().uuidString).json").path
        try Data(Self.configText.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = try LocatedJSON.decode(Config.self, fromFile: path, schema: try schema(Self.schemaText))
        #expect(config.apps.map(\.clientId) == ["app-1"])
    }

    @Test func checksAfterDecodingPointIntoTheFile() throws {
        let decoded = try LocatedJSON.decodeDocument(Config.self, from: Array(Self.configText.utf8), file: "config.json",
                                                     schema: try schema(Self.schemaText))
        #expect(decoded.value.apps.count == 1)
        #expect(decoded.problem(at: "/apps/0/clientId", #"client id "app-1" is already used"#).description ==
            #"config.json:5:18: client id "app-1" is already used"#)
        let missing = decoded.problem(at: "/apps/0/homeTenant", "no home tenant")
        #expect(missing.description == "config.json:5:5: no home tenant")
        #expect(missing.path == "/apps/0")
    }

    @Test func errorsThatAreNotDecodingErrorsAreReportedAtTheDocument() throws {
        struct Refusal: Error, CustomStringConvertible { var description: String { "tenant is disabled" } }
        let problem = LocatedJSON.problem(for: Refusal(), in: try tree("  {}"), file: "t.json")
        #expect(problem.description == "t.json:1:3: tenant is disabled")
    }
}
