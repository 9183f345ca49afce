// libFuzzer target for the located JSON parser (LocatedJSON.parse), linked by scripts/fuzz.
// Besides "never crash, never hang", two properties: every problem points inside the input, and a
// document that parses prints back (our own minimal printer) to text that parses to the same JSON.
import LocatedJSON

func printed(_ value: JSONValue) -> String {
    switch value.kind {
    case .null: "null"
    case .bool(let flag): flag ? "true" : "false"
    case .number(let number): number.literal
    case .string(let text): JSONValue.quoted(text)
    case .array(let elements): "[" + elements.map(printed).joined(separator: ",") + "]"
    case .object(let members): "{" + members.map { JSONValue.quoted($0.key) + ":" + printed($0.value) }.joined(separator: ",") + "}"
    }
}

func checkLocations(_ problems: JSONProblems, size: Int) {
    require(!problems.problems.isEmpty, "an error without a problem")
    for problem in problems.problems {
        require(problem.location.line >= 1 && problem.location.column >= 1, "problem before the start: \(problem)")
        require(problem.location.offset <= size, "problem after the end: \(problem)")
        require(!problem.description.isEmpty)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for limits in [JSONParseLimits.default, JSONParseLimits(maximumDepth: 6, maximumBytes: 200)] {
        do {
            let value = try LocatedJSON.parse(bytes, file: "fuzz.json", limits: limits)
            let again = try LocatedJSON.parse(Array(printed(value).utf8), file: "printed.json")
            require(value.sameJSON(as: again), "printing and parsing again changed the document")
        } catch {
            checkLocations(error, size: size)
        }
    }
    return 0
}
