import FoundationGaps
import Synchronization
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// Turns SIGINT/SIGTERM into calls on a normal thread with the self-pipe trick. A sigaction handler
/// is in place the moment `install` returns, so a signal sent right after the server reports
/// readiness is never lost (a DispatchSource arms itself asynchronously, leaving such a window), and
/// the relay thread accepts the signals of the first `install` whatever the other threads block.
enum SignalRelay {
    private static let state = Mutex<(installed: Set<Int32>, listeners: [@Sendable (Int32) -> Void], readFD: Int32)>(([], [], -1))

    static func install(_ signals: [Int32], listener: @escaping @Sendable (Int32) -> Void) {
        let pipeToStart: Int32? = state.withLock { state in
            state.listeners.append(listener)
            guard state.readFD < 0 else { return nil }
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            signalWriteFD = fds[1]
            state.readFD = fds[0]
            return fds[0]
        }
        if let readFD = pipeToStart {
            NamedThread.start("fe-signals") {
                acceptOnThisThread(signals)
                relay(from: readFD)
            }
        }
        for number in signals {
            let isNew = state.withLock { $0.installed.insert(number).inserted }
            guard isNew else { continue }
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalWriteFD, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalWriteFD, &byte, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// Every other thread may block the signals: Dispatch's worker threads block all asynchronous ones,
    /// the threads started from them inherit that mask, and a parent may start the process with them
    /// blocked. The relay thread takes them, so a handler always runs (a signal sent before this line
    /// stays pending until it does).
    private static func acceptOnThisThread(_ signals: [Int32]) {
        var accepted = sigset_t()
        sigemptyset(&accepted)
        for number in signals { sigaddset(&accepted, number) }
        pthread_sigmask(SIG_UNBLOCK, &accepted, nil)
    }

    private static func relay(from fd: Int32) {
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return }
            let listeners = state.withLock { $0.listeners }
            for listener in listeners { listener(Int32(byte)) }
        }
    }
}

/// Written once before any handler is installed; read by the async-signal-safe handler.
nonisolated(unsafe) private var signalWriteFD: Int32 = -1
