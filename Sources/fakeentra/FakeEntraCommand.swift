import ArgumentParser
import Dispatch
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

struct FakeEntraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fakeentra",
        abstract: "A local, scriptable Microsoft identity platform (Entra ID, Azure AD B2C) and Microsoft Graph.",
        subcommands: [ServeCommand.self, CertsCommand.self, ConformCommand.self, ScenariosCommand.self, JournalCommand.self, TokenCommand.self, ReplayCommand.self, SchemaCommand.self, BrowseCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

/// The process entry point: runs the command on a task and keeps the main thread waiting for it.
/// An `async` main would instead hand the main thread to `dispatch_main()`, which ends it with
/// `pthread_exit`; that unwinds the thread, and in the static executable the first unwind makes libgcc
/// sort every unwind-table entry of the binary (3.5 MB read and kept resident) during start-up.
/// Nothing in FakeEntra runs on the main actor or the main queue (the main thread never serves them:
/// such work would wait forever), and the main thread takes SIGINT and SIGTERM (see below).
@main
enum FakeEntraMain {
    static func main() {
        // The command runs on Dispatch's worker threads, which block every asynchronous signal, and
        // the server's threads started from them inherit that mask; a parent may also have started
        // us with the signals blocked. The waiting main thread is where SignalRelay's handlers run.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await FakeEntraCommand.main()
            finished.signal()
        }
        finished.wait()
    }
}
