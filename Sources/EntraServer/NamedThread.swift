#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Starts a thread that `top -H`, `ps -L` and debuggers show as `name`. The thread names itself:
/// Foundation on Linux passes neither a name set before `start()` on to the kernel nor, reliably, one
/// set from inside (only once `start()` has recorded the thread, which can come later).
enum NamedThread {
    /// Linux keeps 15 bytes of a thread's name and refuses a longer one.
    static let longestName = 15

    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= longestName && name.utf8.allSatisfy { $0 < 0x80 }, "thread name \(name) is not 15 ASCII bytes or fewer")
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.start()
    }

    /// Best effort: a thread without its name works the same.
    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        // Glibc's module leaves out `pthread_setname_np` (a GNU extension) and `prctl` is variadic; the
        // kernel takes a thread's own name written to its `comm` file just the same.
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        _ = name.withCString { write(file, $0, name.utf8.count) }
        close(file)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name)
        #endif
    }
}
