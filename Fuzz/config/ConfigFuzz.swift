// libFuzzer target for the `--config` loader (identity sections, graph, b2c and bindings; FakeEntraApp),
// linked by scripts/fuzz. The input is written to a file in a private temporary directory (the loader reads
// files, and photo paths are relative to the config file). A file loads or yields located problems.
import FakeEntraApp
import Foundation
import LocatedJSON

let workDirectory: String = {
    let path = NSTemporaryDirectory() + "fakeentra-config-fuzz-\(getpid())"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    require(FileManager.default.createFile(atPath: path + "/photo.png", contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func configFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let file = workDirectory + "/config.json"
    require(FileManager.default.createFile(atPath: file, contents: Data(bytes: data, count: size)))
    do {
        let loaded = try LoadedConfiguration.load(file: file)
        _ = loaded.identity.directory
    } catch {
        require(!error.problems.isEmpty, "refused without a problem")
        for problem in error.problems {
            require(problem.location.line >= 1 && problem.location.column >= 1 && problem.location.offset <= size, "problem outside the file: \(problem)")
        }
    }
    return 0
}
