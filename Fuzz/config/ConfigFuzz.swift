// libFuzzer target for the `--config` loader (identity sections, graph, b2c and bindings; FakeEntraApp),
// linked by scripts/fuzz. The input is written to a file in a private temporary directory (the loader reads
// files, and photo paths are relative to the config file). A file loads or yields located problems.
// The file is rewritten in place with write(2) on tmpfs when there is one: FileManager.createFile wrote a
// new file with fsync for every input, and disk I/O was most of the harness's time.
import FakeEntraApp
import Foundation
import LocatedJSON

let workDirectory: String = {
    let memory = "/dev/shm/"
    let path = (access(memory, W_OK) == 0 ? memory : NSTemporaryDirectory()) + "fakeentra-config-fuzz-\(getpid())"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    require(FileManager.default.createFile(atPath: path + "/photo.png", contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
    atexit { try? FileManager.default.removeItem(atPath: workDirectory) }
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func configFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let file = workDirectory + "/config.json"
    let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    require(descriptor >= 0 && write(descriptor, data, size) == size, "cannot write \(file)")
    close(descriptor)
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
