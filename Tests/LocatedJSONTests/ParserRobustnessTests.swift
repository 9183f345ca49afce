import Foundation
import Testing
import LocatedJSON

/// Mutated documents never crash the parser; every problem's line and column agree with its
/// byte offset; whatever we accept, Foundation's parser accepts too.
@Suite struct ParserRobustnessTests {
    static let seedDocument = """
    {\r\n\t"name": "Zoë \\u00e9 \\ud83d\\ude00",
      "values": [0, -1.5e+3, 12, true, false, null, {"k": []}],
      "nested": {"a": {"b": [{"c": "d\\n"}]}}
    }
    """

    /// SplitMix64: a fixed seed keeps the mutations identical from run to run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let interestingBytes = Array("{}[],:\"\\ \t\r\n0-1.eEtrufalsn/*'x".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xF0]

    /// Line and column of `offset`, counted the simple way from the start of the file.
    static func expectedPosition(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var index = 0
        while index < offset {
            if bytes[index] == 0x0D {
                line += 1
                column = 1
                if index + 1 < offset, bytes[index + 1] == 0x0A { index += 1 }
            } else if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    @Test func mutationsAreHandledAndLocatedConsistently() throws {
        var generator = Generator(state: 2024)
        let original = Array(Self.seedDocument.utf8)
        #expect(parseProblems(Self.seedDocument) == [])
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(Self.interestingBytes.randomElement(using: &generator)!, at: index)
                default: bytes[index] = Self.interestingBytes.randomElement(using: &generator)!
                }
            }
            do {
                _ = try LocatedJSON.parse(bytes, file: "m.json")
                accepted += 1
                #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil,
                        "accepted but Foundation rejects: \(String(decoding: bytes, as: UTF8.self))")
            } catch {
                for problem in error.problems {
                    let expected = Self.expectedPosition(of: problem.location.offset, in: bytes)
                    #expect(problem.location.line == expected.line && problem.location.column == expected.column,
                            "\(problem) for \(String(decoding: bytes, as: UTF8.self))")
                    #expect(problem.location.offset <= bytes.count)
                }
            }
        }
        // Some mutations (inside strings, whitespace) keep the document valid.
        #expect(accepted > 50)
    }
}
