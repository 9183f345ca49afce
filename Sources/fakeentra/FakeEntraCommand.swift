#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Dispatch
import FakeEntraApp
import FoundationGaps

struct FakeEntraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fakeentra",
        abstract: "A local, scriptable Microsoft identity platform (Entra ID, Azure AD B2C) and Microsoft Graph.",
        version: FakeEntraVersion.current,
        subcommands: [ServeCommand.self, HealthCommand.self, CertsCommand.self, ConformCommand.self, ScenariosCommand.self, JournalCommand.self, TokenCommand.self, ReplayCommand.self, SchemaCommand.self, BrowseCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

/// The process entry point: runs the command on a task and keeps the main thread waiting for it.
/// An `async` main would instead hand the main thread to `dispatch_main()`, which ends it with
/// `pthread_exit`; that unwinds the thread, and in the static executable the first unwind makes libgcc
/// sort every unwind-table entry of the binary (3.5 MB read and kept resident) during start-up.
/// Nothing in FakeEntra runs on the main actor or the main queue (the main thread never serves them:
/// such work would wait forever). The command runs on Dispatch's worker threads, which block signals:
/// SignalRelay's own thread takes SIGINT and SIGTERM.
@main
enum FakeEntraMain {
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let arguments = try ServeEnvironment.arguments(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
                await FakeEntraCommand.main(arguments)
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                exit(64)
            }
            finished.signal()
        }
        finished.wait()
    }
}
