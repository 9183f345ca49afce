#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FoundationGaps

/// Starts this executable again in its own session, detached from the caller's terminal and pipes,
/// and returns without waiting: how `fakeentra browse` lets Python's webbrowser go on.
enum BackgroundProcess {
    #if os(Linux)
    /// POSIX_SPAWN_SETSID: glibc (2.26+) declares it only under _GNU_SOURCE, which Swift's Glibc does not set.
    private static let newSessionFlag: Int16 = 0x80
    #else
    private static let newSessionFlag = Int16(POSIX_SPAWN_SETSID)
    #endif

    static func detach(arguments: [String], output: String?) throws {
        guard let executable = ChildProcess.currentExecutablePath else { throw ValidationError("cannot find the fakeentra executable to start in the background") }
        let options = SpawnOptions()
        // The caller's stdout may be a pipe someone reads to its end (a test runner, the conformance
        // suite): the child must not keep it open. Its output goes to --log, or nowhere.
        posix_spawn_file_actions_addopen(&options.actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&options.actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&options.actions, 1, 2)
        posix_spawnattr_setflags(&options.attributes, newSessionFlag)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        // Darwin's headers do not declare `environ`; the environment is passed as this process sees it.
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &options.actions, &options.attributes, argv, environment)
        guard status == 0 else { throw ValidationError("cannot start the background sign-in: \(String(cString: strerror(status)))") }
    }
}
