// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
package import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread running a closure: the event loops, the workers, a relay, a background run.
package final class Thread: @unchecked Sendable {
    private var body: (@Sendable () -> Void)?
    /// What `top -H`, `ps -L` and debuggers show: 15 ASCII bytes or fewer (Linux keeps no more).
    package var name: String?

    package init(block: @escaping @Sendable () -> Void) { body = block }

    package func start() {
        guard let body else { return }
        self.body = nil
        let name = self.name
        let box = Unmanaged.passRetained(ThreadBody {
            if let name { Self.nameCurrentThread(name) }
            body()
        }).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, &attributes, { raw in
            #if canImport(Darwin)
            let body = Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue()
            #else
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
        precondition(result == 0, "pthread_create failed (\(result))")
    }

    /// Best effort: a thread without its name works the same.
    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        // Glibc's module leaves out `pthread_setname_np` (a GNU extension) and `prctl` is variadic; the
        // kernel takes a thread's own name written to its `comm` file just the same.
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        _ = name.withCString { write(file, $0, min(name.utf8.count, 15)) }
        close(file)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name)
        #endif
    }

    package static func detachNewThread(_ block: @escaping @Sendable () -> Void) { Thread(block: block).start() }

    package static func sleep(forTimeInterval interval: TimeInterval) {
        guard interval > 0 else { return }
        var request = timespec(tv_sec: Int(interval), tv_nsec: Int((interval - interval.rounded(.down)) * 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A mutex with a condition variable (Foundation's `NSCondition`, on pthreads).
package final class NSCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    package func wait() { pthread_cond_wait(condition, mutex) }
    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// False when `limit` passed without a signal.
    @discardableResult
    package func wait(until limit: Date) -> Bool {
        let seconds = limit.timeIntervalSince1970
        var deadline = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }
}
#endif
