#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit, which bounds connections: every connection is a descriptor, and an
/// `accept` beyond the limit fails (EMFILE) with the client still waiting in the backlog.
enum DescriptorLimit {
    /// Descriptors the process keeps besides its connections: listeners, event queues and wake signals,
    /// the state database, certificates and configuration read at run time, a child process's pipes.
    static let reservedForTheProcess = 64

    /// Raises the soft limit to the hard one (shells and launchd start most programs at 256 or 1,024 while
    /// the hard limit is far higher) and returns the soft limit then in force; nil when it cannot be read.
    static func raiseToHardLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(openFiles, &limit) == 0 else { return nil }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
        // Darwin refuses a soft limit above OPEN_MAX (setrlimit(2)), which an unlimited hard limit exceeds.
        wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        if wanted > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(openFiles, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The connections the server may hold: the configured cap, within what the limit leaves once the
    /// process's own descriptors are counted.
    static func connectionCap(configured: Int, softLimit: Int?) -> Int {
        guard let softLimit else { return configured }
        return max(1, min(configured, softLimit - reservedForTheProcess))
    }
}

#if canImport(Glibc)
private let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
private let openFiles = RLIMIT_NOFILE
#endif
