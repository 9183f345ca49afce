// libFuzzer target for the HAR importer (`fakeentra replay`, Scenarios module), linked by scripts/fuzz.
// Property: whatever the importer writes is a scenario the scenario loader accepts.
import FakeEntraApp
import Scenarios

@_cdecl("LLVMFuzzerTestOneInput")
public func harFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let scenario = try HARImporter.convert(har: bytes, name: "fuzz-replay", source: "fuzz.har", routes: ApplicationRoutes.forRecordings)
        if case .failure(let problems) = ScenarioLibrary.parse(Array(scenario.utf8), file: "replayed.json") {
            require(false, "the importer wrote a scenario the loader refuses:\n\(problems)\n\(scenario)")
        }
    } catch {
        require(!error.description.isEmpty)
    }
    return 0
}
