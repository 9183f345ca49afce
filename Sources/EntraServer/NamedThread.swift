import Foundation

/// Starts a thread that `top -H`, `ps -L` and debuggers show as `name`. The name is given from inside
/// the thread: Foundation on Linux does not pass a name set before `start()` on to the kernel, whose
/// limit of 15 bytes also makes a longer name fail silently, so it is cut to that length.
enum NamedThread {
    static let longestName = 15

    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let visible = String(decoding: name.utf8.prefix(longestName), as: UTF8.self)
        let thread = Thread {
            Thread.current.name = visible
            body()
        }
        thread.name = visible
        thread.start()
    }
}
