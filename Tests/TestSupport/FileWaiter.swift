#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Waits until `path` exists, or `timeoutMilliseconds` pass; returns whether it exists. Linux is told by
/// inotify (no polling); elsewhere the file is looked for every 10 ms.
package func waitForFile(_ path: String, timeoutMilliseconds: Int32 = 20_000) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
    #if os(Linux)
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    guard watcher >= 0 else { return FileManager.default.fileExists(atPath: path) }
    defer { close(watcher) }
    // Watch first, then look: a file created in between is seen either way.
    _ = inotify_add_watch(watcher, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE))
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !FileManager.default.fileExists(atPath: path) {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return false }
        var poller = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
        if poll(&poller, 1, milliseconds) > 0 { _ = read(watcher, &buffer, buffer.count) }
        if poller.revents & Int16(POLLNVAL) != 0 { return FileManager.default.fileExists(atPath: path) }
    }
    return true
    #else
    while !FileManager.default.fileExists(atPath: path) {
        guard ContinuousClock.now < deadline else { return false }
        usleep(10_000)
    }
    return true
    #endif
}
