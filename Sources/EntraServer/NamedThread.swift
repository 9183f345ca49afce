import FoundationGaps

/// Starts a thread that `top -H`, `ps -L` and debuggers show as `name` (the thread names itself, as it
/// starts).
enum NamedThread {
    /// Linux keeps 15 bytes of a thread's name and refuses a longer one.
    static let longestName = 15

    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= longestName && name.utf8.allSatisfy { $0 < 0x80 }, "thread name \(name) is not 15 ASCII bytes or fewer")
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
