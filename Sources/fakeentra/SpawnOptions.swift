#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// posix_spawn's file actions and attributes, initialised and destroyed together. They are structs in
/// glibc but opaque pointers in Darwin's headers, so a value-initialised `posix_spawnattr_t()` does not
/// compile on a Mac: this is the one place that knows the difference.
final class SpawnOptions {
    #if canImport(Glibc)
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    #else
    var actions: posix_spawn_file_actions_t?
    var attributes: posix_spawnattr_t?
    #endif

    init() {
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
    }

    deinit {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
}
