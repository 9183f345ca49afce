// libFuzzer target for the JSON Schema compiler and validator (LocatedJSON), linked by scripts/fuzz.
// Each input is validated as a document against the four schemas the server enforces (config, scenario,
// graph, b2c), and compiled as a schema that then validates a few fixed documents and the input itself.
// Every problem must point inside the document it concerns.
import B2C
import Graph
import IdentityPlatform
import LocatedJSON
import Scenarios

let enforcedSchemas = [ConfigurationSchema.schema, ScenarioSchema.compiled, GraphDataset.schema, B2CConfiguration.schema]

let fixedDocuments: [(bytes: [UInt8], value: JSONValue)] = [
    #"{"name":"x","users":[{"upn":"a@b.c","age":3}],"n":1.5,"flag":true,"none":null}"#,
    #"[1,"two",[3],{"four":4},null,false,-0.0,1e300]"#, #""2026-11-23T18:00:00Z""#, "42",
].map { text in (Array(text.utf8), try! LocatedJSON.parse(Array(text.utf8), file: "fixed.json")) }

func checkProblems(_ problems: [JSONProblem], within size: Int) {
    for problem in problems {
        require(problem.location.line >= 1 && problem.location.column >= 1 && problem.location.offset <= size, "problem outside the document: \(problem)")
        require(!problem.message.isEmpty)
        _ = problem.description
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func schemaFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? LocatedJSON.parse(bytes, file: "fuzz.json") else { return 0 }
    for schema in enforcedSchemas {
        checkProblems(schema.validate(document, file: "fuzz.json"), within: size)
    }
    do {
        let schema = try JSONSchema(document: document, file: "fuzz.schema.json")
        for fixed in fixedDocuments {
            checkProblems(schema.validate(fixed.value, file: "fixed.json"), within: fixed.bytes.count)
        }
        checkProblems(schema.validate(document, file: "fuzz.json"), within: size)
    } catch {
        checkProblems(error.problems, within: size)
    }
    return 0
}
