/// A regular expression matched by a Thompson NFA simulation (the Pike VM without captures): every
/// input scalar advances each live state at most once, so a match costs at most
/// `program.count × (input scalars + 1)` steps whatever the pattern — `^(a+)+$` against a long
/// `login_hint` included. Scenario rules and a user flow's attribute rules run on the request path; a
/// backtracking engine there lets one pattern stall the server.
package struct LinearRegex: Sendable {
    /// Compiled programs larger than this are refused (`(a{1000}){1000}` would be a million states).
    package static let maximumProgramSize = 20_000

    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case set(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case assert(RegexAssertion)
        case match
    }

    package let source: String
    private let program: [Instruction]
    private let caseInsensitive: Bool

    package init(_ source: String) throws(RegexSyntaxError) {
        var parser = RegexParser(source)
        let tree = try parser.parse()
        var compiler = RegexCompiler()
        try compiler.emit(tree)
        compiler.program.append(.match)
        self.source = source
        program = compiler.program
        caseInsensitive = parser.caseInsensitive
    }

    package var programSize: Int { program.count }

    /// Whether the pattern matches anywhere in `text` (an unanchored search, as ECMA-262 `test` does).
    package func matches(_ text: String) -> Bool { run(text).matched }

    /// The answer and the number of VM steps it took; tests bound the steps, never the wall time.
    package func run(_ text: String) -> (matched: Bool, steps: Int) {
        let input = Array(text.unicodeScalars)
        var current = StateList(capacity: program.count)
        var next = StateList(capacity: program.count)
        var steps = 0
        for position in 0...input.count {
            // Unanchored search: a new attempt starts at every position.
            if addState(0, position: position, input: input, to: &current, steps: &steps) { return (true, steps) }
            guard position < input.count else { break }
            let scalar = input[position]
            next.clear()
            for pc in current.states {
                steps += 1
                let advances: Bool = switch program[pc] {
                case .scalar(let wanted): scalar == wanted || (caseInsensitive && RegexCase.variants(of: scalar).contains(wanted))
                case .set(let set): set.contains(scalar, caseInsensitive: caseInsensitive)
                default: false
                }
                if advances, addState(pc + 1, position: position + 1, input: input, to: &next, steps: &steps) { return (true, steps) }
            }
            swap(&current, &next)
        }
        return (false, steps)
    }

    /// Follows jumps, splits and assertions from `start` (each state once per position) and adds the
    /// consuming states reached; true when `match` is reachable.
    private func addState(_ start: Int, position: Int, input: [Unicode.Scalar], to list: inout StateList, steps: inout Int) -> Bool {
        var pending = [start]
        while let pc = pending.popLast() {
            guard list.mark(pc) else { continue }
            steps += 1
            switch program[pc] {
            case .match: return true
            case .jump(let target): pending.append(target)
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .assert(let kind):
                if holds(kind, at: position, in: input) { pending.append(pc + 1) }
            case .scalar, .set: list.states.append(pc)
            }
        }
        return false
    }

    private func holds(_ assertion: RegexAssertion, at position: Int, in input: [Unicode.Scalar]) -> Bool {
        switch assertion {
        case .lineStart: return position == 0
        // ICU without MULTILINE: the end, or just before a final line terminator.
        case .lineEnd: return position == input.count || (position == input.count - 1 && input[position] == "\n")
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && ScalarSet.isWord(input[position - 1])
            let after = position < input.count && ScalarSet.isWord(input[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}

/// The states live at one input position, with O(1) membership and clearing by generation.
private struct StateList {
    var states: [Int] = []
    private var seen: [Int]
    private var generation = 1

    init(capacity: Int) {
        seen = Array(repeating: 0, count: capacity)
        states.reserveCapacity(capacity)
    }

    /// False when `pc` was already added at this position.
    mutating func mark(_ pc: Int) -> Bool {
        guard seen[pc] != generation else { return false }
        seen[pc] = generation
        return true
    }

    mutating func clear() {
        states.removeAll(keepingCapacity: true)
        generation += 1
    }
}

private struct RegexCompiler {
    var program: [LinearRegex.Instruction] = []

    private mutating func append(_ instruction: LinearRegex.Instruction) throws(RegexSyntaxError) -> Int {
        guard program.count < LinearRegex.maximumProgramSize else {
            throw RegexSyntaxError(position: 1, reason: "the pattern expands to more than \(LinearRegex.maximumProgramSize) states (lower the repetition counts)")
        }
        program.append(instruction)
        return program.count - 1
    }

    mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
        switch node {
        case .empty: break
        case .scalar(let s): _ = try append(.scalar(s))
        case .set(let set): _ = try append(.set(set))
        case .assertion(let kind): _ = try append(.assert(kind))
        case .sequence(let items): for item in items { try emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index == branches.count - 1 {
                    try emit(branch)
                } else {
                    let split = try append(.split(0, 0))
                    try emit(branch)
                    jumps.append(try append(.jump(0)))
                    program[split] = .split(split + 1, program.count)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each optional copy: split(copy, end); nested so the remaining copies are skipped at once.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(try append(.split(0, 0)))
                    try emit(inner)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                // loop: split(body, end); body; jump loop
                let loop = try append(.split(0, 0))
                try emit(inner)
                _ = try append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}
