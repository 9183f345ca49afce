// Compiled into every harness by scripts/fuzz. Harnesses are optimised builds, where `precondition`
// drops its message; a broken property must say what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "property violated", file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}
