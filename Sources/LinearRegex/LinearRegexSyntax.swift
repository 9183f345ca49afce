/// The regular expressions a scenario may write, parsed into a tree. The syntax is the common subset
/// of ICU/PCRE/JavaScript that a Thompson NFA runs in time linear in the input (docs/scenarios.md):
/// literals and escapes, `.`, classes `[…]`/`[^…]` with ranges and `\d \w \s \D \W \S`, groups `(…)`,
/// `(?:…)`, `(?<name>…)`, alternation `|`, `* + ? {n} {n,} {n,m}` (greedy or lazy: for "does it match"
/// they are the same), anchors `^ $ \b \B` and a leading `(?i)`. Backreferences, lookaround, atomic
/// groups and possessive quantifiers need backtracking and are refused with the reason.
indirect enum RegexNode: Equatable {
    case empty
    case scalar(Unicode.Scalar)
    case set(ScalarSet)
    case sequence([RegexNode])
    case alternation([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?)
    case assertion(RegexAssertion)
}

enum RegexAssertion: Equatable {
    case lineStart, lineEnd, wordBoundary, notWordBoundary
}

/// A set of scalars: ranges and named classes, possibly negated.
struct ScalarSet: Equatable {
    enum Named: Equatable { case digit, word, space, any }
    var ranges: [ClosedRange<UInt32>] = []
    var named: [(Named, negated: Bool)] = []
    var negated = false

    static func == (a: ScalarSet, b: ScalarSet) -> Bool {
        a.ranges == b.ranges && a.negated == b.negated && a.named.map(\.0) == b.named.map(\.0) && a.named.map(\.negated) == b.named.map(\.negated)
    }

    static func named(_ name: Named, negated: Bool = false) -> ScalarSet { ScalarSet(named: [(name, negated)]) }

    func contains(_ s: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
        let hit = holds(s) || (caseInsensitive && RegexCase.variants(of: s).contains(where: holds))
        return hit != negated
    }

    private func holds(_ s: Unicode.Scalar) -> Bool {
        if ranges.contains(where: { $0.contains(s.value) }) { return true }
        return named.contains { name, negated in ScalarSet.test(name, s) != negated }
    }

    static func test(_ name: Named, _ s: Unicode.Scalar) -> Bool {
        switch name {
        case .any: s != "\n" && s != "\r" && s != "\u{85}" && s != "\u{2028}" && s != "\u{2029}"
        case .digit: s.properties.numericType == .decimal
        case .space: s.properties.isWhitespace
        case .word: isWord(s)
        }
    }

    /// ICU's `\w`: letters, marks, decimal digits, connector punctuation, ZWJ/ZWNJ.
    static func isWord(_ s: Unicode.Scalar) -> Bool {
        let p = s.properties
        return p.isAlphabetic || p.numericType == .decimal || p.generalCategory == .connectorPunctuation
            || p.generalCategory == .nonspacingMark || p.generalCategory == .spacingMark || p.generalCategory == .enclosingMark
            || s == "\u{200C}" || s == "\u{200D}"
    }
}

enum RegexCase {
    /// The other cases of a scalar (simple one-scalar mappings only).
    static func variants(of s: Unicode.Scalar) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        for mapping in [s.properties.lowercaseMapping, s.properties.uppercaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let v = scalars.first, v != s { out.append(v) }
        }
        return out
    }
}

/// A refusal, with the 1-based character position in the pattern.
package struct RegexSyntaxError: Error, Equatable {
    package var position: Int
    package var reason: String

    /// `invalid regular expression "…": reason (at character n)`, as configuration and scenario files report it.
    package func message(pattern: String) -> String { "invalid regular expression \"\(pattern)\": \(reason) (at character \(position))" }
}

struct RegexParser {
    /// Deeper nesting than this is refused (no pattern a person writes comes close; a stack must not overflow).
    static let maximumDepth = 64
    /// Largest bound of a counted repetition.
    static let maximumCount = 1000

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0
    private(set) var caseInsensitive = false

    init(_ source: String) { scalars = Array(source.unicodeScalars) }

    mutating func parse() throws(RegexSyntaxError) -> RegexNode {
        if starts(with: "(?i)") {
            caseInsensitive = true
            index += 4
        }
        let node = try alternation()
        if index < scalars.count { throw fail(scalars[index] == ")" ? "unbalanced \")\"" : "unexpected \"\(scalars[index])\"") }
        return node
    }

    private func fail(_ reason: String, at position: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(position: (position ?? index) + 1, reason: reason)
    }

    private func starts(with text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        return index + wanted.count <= scalars.count && Array(scalars[index..<index + wanted.count]) == wanted
    }

    private var next: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try sequence()]
        while next == "|" {
            index += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = next, c != "|", c != ")" {
            let start = index
            let atom = try self.atom()
            items.append(try quantified(atom, start: start))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
    }

    private mutating func quantified(_ atom: RegexNode, start: Int) throws(RegexSyntaxError) -> RegexNode {
        var node = atom
        while let c = next {
            let bounds: (Int, Int?)
            switch c {
            case "*": bounds = (0, nil); index += 1
            case "+": bounds = (1, nil); index += 1
            case "?": bounds = (0, 1); index += 1
            case "{":
                guard let counted = try countedBounds() else { return node }
                bounds = counted
            default: return node
            }
            if case .assertion = atom { throw fail("an anchor cannot be repeated", at: start) }
            if next == "?" { index += 1 } // lazy: the same answer to "is there a match"
            else if next == "+" { throw fail("possessive quantifiers need backtracking; not supported") }
            node = .repeated(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// `{n}`, `{n,}`, `{n,m}`; nil (and nothing consumed) when the brace is a literal, as in ICU.
    private mutating func countedBounds() throws(RegexSyntaxError) -> (Int, Int?)? {
        let open = index
        index += 1
        func number() -> Int? {
            var digits = ""
            while let c = next, ("0"..."9").contains(c), digits.count < 9 {
                digits.unicodeScalars.append(c)
                index += 1
            }
            return Int(digits)
        }
        guard let low = number() else { index = open; return nil }
        var high: Int? = low
        if next == "," {
            index += 1
            high = number()
        }
        guard next == "}" else { index = open; return nil }
        index += 1
        guard low <= Self.maximumCount, (high ?? low) <= Self.maximumCount else { throw fail("a repetition count above \(Self.maximumCount)", at: open) }
        if let high, high < low { throw fail("{\(low),\(high)}: the maximum is below the minimum", at: open) }
        return (low, high)
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let c = scalars[index]
        switch c {
        case "(": return try group()
        case "[":
            index += 1
            return .set(try bracketSet())
        case ".":
            index += 1
            return .set(.named(.any))
        case "^":
            index += 1
            return .assertion(.lineStart)
        case "$":
            index += 1
            return .assertion(.lineEnd)
        case "\\": return try escape(inSet: false).node
        case "*", "+", "?": throw fail("\"\(c)\" has nothing to repeat")
        case "{":
            if (try? countedBounds()) != nil { throw fail("\"{\" has nothing to repeat") }
            index += 1
            return .scalar(c)
        default:
            index += 1
            return .scalar(c)
        }
    }

    private mutating func group() throws(RegexSyntaxError) -> RegexNode {
        let open = index
        index += 1
        if next == "?" {
            if starts(with: "?:") { index += 2 }
            else if starts(with: "?<"), index + 2 < scalars.count, scalars[index + 2] != "=", scalars[index + 2] != "!" {
                index += 2
                while let c = next, c != ">" {
                    guard c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" else { throw fail("a group name is letters and digits") }
                    index += 1
                }
                guard next == ">" else { throw fail("unterminated group name", at: open) }
                index += 1
            } else if starts(with: "?=") || starts(with: "?!") || starts(with: "?<=") || starts(with: "?<!") {
                throw fail("lookaround needs backtracking; not supported", at: open)
            } else if starts(with: "?>") {
                throw fail("atomic groups need backtracking; not supported", at: open)
            } else {
                throw fail("inline flags are supported only as a leading (?i)", at: open)
            }
        }
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("groups nested deeper than \(Self.maximumDepth)", at: open) }
        let inner = try alternation()
        depth -= 1
        guard next == ")" else { throw fail("unclosed \"(\"", at: open) }
        index += 1
        return inner
    }

    /// After `\`: a class, an anchor, a control escape or an escaped literal.
    private mutating func escape(inSet: Bool) throws(RegexSyntaxError) -> (node: RegexNode, scalar: Unicode.Scalar?) {
        let start = index
        index += 1
        guard let c = next else { throw fail("a pattern cannot end with \"\\\"", at: start) }
        index += 1
        switch c {
        case "d": return (.set(.named(.digit)), nil)
        case "D": return (.set(.named(.digit, negated: true)), nil)
        case "w": return (.set(.named(.word)), nil)
        case "W": return (.set(.named(.word, negated: true)), nil)
        case "s": return (.set(.named(.space)), nil)
        case "S": return (.set(.named(.space, negated: true)), nil)
        case "b" where !inSet: return (.assertion(.wordBoundary), nil)
        case "B" where !inSet: return (.assertion(.notWordBoundary), nil)
        case "t": return (.scalar("\t"), "\t")
        case "n": return (.scalar("\n"), "\n")
        case "r": return (.scalar("\r"), "\r")
        case "f": return (.scalar("\u{0C}"), "\u{0C}")
        case "v": return (.scalar("\u{0B}"), "\u{0B}")
        case "0": return (.scalar("\0"), "\0")
        case "x", "u":
            let width = c == "x" ? 2 : 4
            guard index + width <= scalars.count, let value = UInt32(String(String.UnicodeScalarView(scalars[index..<index + width])), radix: 16),
                  let scalar = Unicode.Scalar(value) else { throw fail("\\\(c) needs \(width) hexadecimal digits", at: start) }
            index += width
            return (.scalar(scalar), scalar)
        case "1"..."9", "k": throw fail("backreferences need backtracking; not supported", at: start)
        default:
            guard !c.properties.isAlphabetic, !("0"..."9").contains(c) else { throw fail("unknown escape \"\\\(c)\"", at: start) }
            return (.scalar(c), c)
        }
    }

    private mutating func bracketSet() throws(RegexSyntaxError) -> ScalarSet {
        let open = index - 1
        var set = ScalarSet()
        if next == "^" {
            set.negated = true
            index += 1
        }
        var first = true
        while let c = next, c != "]" || first {
            first = false
            if c == "[" { throw fail("nested classes and class operations are not supported") }
            var low: Unicode.Scalar
            if c == "\\" {
                let escaped = try escape(inSet: true)
                guard let scalar = escaped.scalar else {
                    if case .set(let inner) = escaped.node { set.named += inner.named }
                    continue
                }
                low = scalar
            } else {
                low = c
                index += 1
            }
            if next == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                var high = scalars[index]
                if high == "\\" {
                    guard let scalar = try escape(inSet: true).scalar else { throw fail("a range cannot end with a class") }
                    high = scalar
                } else {
                    index += 1
                }
                guard low.value <= high.value else { throw fail("the range \(low)-\(high) is backwards") }
                set.ranges.append(low.value...high.value)
            } else {
                set.ranges.append(low.value...low.value)
            }
        }
        guard next == "]" else { throw fail("unclosed \"[\"", at: open) }
        index += 1
        return set
    }
}
