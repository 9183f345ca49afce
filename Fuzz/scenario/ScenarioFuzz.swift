// libFuzzer target for the scenario decoder (schema check + ScenarioDecoder, Scenarios module), linked by
// scripts/fuzz. A file is either a scenario or a list of problems, each pointing inside the file.
import LocatedJSON
import Scenarios

@_cdecl("LLVMFuzzerTestOneInput")
public func scenarioFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch ScenarioLibrary.parse(bytes, file: "fuzz.json") {
    case .success(let scenario):
        require(!scenario.name.isEmpty || size > 0)
    case .failure(let problems):
        require(!problems.problems.isEmpty, "refused without a problem")
        for problem in problems.problems {
            require(problem.location.line >= 1 && problem.location.column >= 1 && problem.location.offset <= size, "problem outside the file: \(problem)")
        }
    }
    return 0
}
