import Foundation
import Testing

/// The Mac build breaks on any Linux-only API that is not behind a condition, and nothing on Linux
/// compiles the other branch: this reads every Swift and C file of the package and fails on such a
/// use outside an `#if os(Linux)` / `canImport(Glibc)` / `__linux__` branch (or the `#else` of a Darwin one).
@Suite struct PortabilityTests {
    static let linuxOnly: [(name: String, pattern: String)] = [
        ("epoll", #"\bepoll_\w+"#),
        ("eventfd", #"\beventfd\b|\bEFD_[A-Z]+"#),
        ("accept4", #"\baccept4\b"#),
        ("SOCK_CLOEXEC / SOCK_NONBLOCK", #"\bSOCK_(CLOEXEC|NONBLOCK)\b"#),
        ("MSG_NOSIGNAL", #"\bMSG_NOSIGNAL\b"#),
        ("/proc", #"/proc/"#),
        ("inotify", #"\binotify_\w+|\bIN_(CLOEXEC|CREATE|MOVED_TO|CLOSE_WRITE)\b"#),
        ("Glibc.", #"\bGlibc\."#),
        ("socket type's rawValue", #"\bSOCK_(STREAM|DGRAM|RAW|SEQPACKET)\.rawValue"#),
        ("value-initialised posix_spawn type", #"\bposix_spawn(_file_actions|attr)_t\(\)"#),
    ]

    struct Finding: CustomStringConvertible, Equatable {
        var file: String
        var line: Int
        var api: String
        var description: String { "\(file):\(line): \(api) outside a Linux-only branch" }
    }

    /// One `#if` … `#endif` block: whether the branch being read is Linux-only, and whether every branch
    /// so far was Darwin-only (so that its `#else` is the non-Darwin, Linux side).
    private struct Branch {
        var isLinux: Bool
        var earlierAllDarwin: Bool
    }

    static func isLinuxCondition(_ condition: String) -> Bool {
        let text = condition.replacingOccurrences(of: " ", with: "")
        guard !text.contains("!os(Linux)"), !text.contains("!canImport(Glibc)"), !text.contains("!defined(__linux__)") else { return false }
        // `canImport(Darwin) || os(Linux)` holds on a Mac too: only a condition that is Linux's alone counts.
        guard !text.contains("||") else { return false }
        return text.contains("os(Linux)") || text.contains("canImport(Glibc)") || text.contains("__linux__")
    }

    static func isDarwinCondition(_ condition: String) -> Bool {
        let text = condition.replacingOccurrences(of: " ", with: "")
        guard !text.contains("||") else { return false }
        return text.contains("canImport(Darwin)") || text.contains("os(macOS)") || text.contains("!os(Linux)") || text.contains("__APPLE__")
    }

    static func findings(in source: String, file: String) -> [Finding] {
        var stack: [Branch] = []
        var result: [Finding] = []
        let expressions = linuxOnly.map { ($0.name, try! Regex($0.pattern)) }
        for (index, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if") {
                let condition = String(line.dropFirst(line.hasPrefix("#ifdef") ? 6 : 3))
                stack.append(Branch(isLinux: isLinuxCondition(condition), earlierAllDarwin: isDarwinCondition(condition)))
                continue
            }
            if line.hasPrefix("#elseif") || line.hasPrefix("#elif") {
                let condition = String(line.dropFirst(line.hasPrefix("#elseif") ? 7 : 5))
                if var top = stack.popLast() {
                    top.isLinux = isLinuxCondition(condition)
                    top.earlierAllDarwin = top.earlierAllDarwin && isDarwinCondition(condition)
                    stack.append(top)
                }
                continue
            }
            if line.hasPrefix("#else") {
                if var top = stack.popLast() {
                    top.isLinux = top.earlierAllDarwin
                    stack.append(top)
                }
                continue
            }
            if line.hasPrefix("#endif") {
                _ = stack.popLast()
                continue
            }
            guard !stack.contains(where: \.isLinux) else { continue }
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
            for (name, expression) in expressions where code.contains(expression) {
                result.append(Finding(file: file, line: index + 1, api: name))
            }
        }
        return result
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func noLinuxOnlyAPIOutsideItsCondition() throws {
        let root = Self.packageRoot
        var found: [Finding] = []
        var scanned = 0
        for folder in ["Sources", "Tests"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard ["swift", "c", "h"].contains(url.pathExtension), url.lastPathComponent != "PortabilityTests.swift" else { continue }
                let relative = String(url.path.dropFirst(root.path.count + 1))
                found += Self.findings(in: try String(contentsOf: url, encoding: .utf8), file: relative)
                scanned += 1
            }
        }
        #expect(scanned > 250, "the package's sources were not found from \(root.path)")
        #expect(found.isEmpty, "\(found.map(\.description).joined(separator: "\n"))")
    }

    @Test func theCheckSeesAnUnguardedUseAndAcceptsAGuardedOne() {
        let unguarded = """
        import Glibc
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        _ = Glibc.send(fd, nil, 0, Int32(MSG_NOSIGNAL)) // sent
        var actions = posix_spawnattr_t()
        """
        #expect(Self.findings(in: unguarded, file: "a.swift").map(\.line) == [2, 3, 3, 4])
        let guarded = """
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #elseif canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        #if canImport(Darwin)
        let x = 1
        #else
        let file = open("/proc/self/comm", 0)
        #endif
        // Glibc.send is only named in this comment
        """
        #expect(Self.findings(in: guarded, file: "b.swift").isEmpty)
        let wronglyGuarded = """
        #if canImport(Darwin) || os(Linux)
        _ = epoll_create1(0)
        #endif
        #if !os(Linux)
        _ = accept4(0, nil, nil, 0)
        #endif
        """
        #expect(Self.findings(in: wronglyGuarded, file: "c.swift").map(\.api) == ["epoll", "accept4"])
    }
}
