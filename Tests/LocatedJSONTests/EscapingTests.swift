import Foundation
import LocatedJSON
import Testing

/// `JSONWriter.appendQuoted` reads eight bytes at a time while none needs an escape: whatever the
/// position of a byte that does, the text is the one a byte-by-byte writer gives.
@Suite struct EscapingTests {
    /// The byte-by-byte rule (RFC 8259 §7) the writer must keep.
    private func reference(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test(arguments: ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\t"])
    func anEscapeAtEveryPositionOfTwoWords(special: String) {
        for length in 0...24 {
            for position in 0..<max(length, 1) {
                var characters = Array(repeating: "a", count: length)
                if length > 0 { characters[position] = special }
                let text = characters.joined()
                #expect(JSONValue.quoted(text) == reference(text), "length \(length), position \(position)")
            }
        }
    }

    @Test func bytesAboveASCIIAndNeighboursOfTheEscapedBytesPassUnchanged() {
        // 0x20 and 0x21 sit next to the control range and the quote, 0x5B and 0x5D next to the backslash.
        let texts = ["é ! [ ] # ~ 日本語 🙂 \u{7F}", String(repeating: "ñ", count: 9) + "\"", " !#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~"]
        for text in texts { #expect(JSONValue.quoted(text) == reference(text)) }
    }

    @Test func randomTextMatchesTheByteByByteRule() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{00}", "\u{1B}", "é", "€", "🙂", "/", "."]
        for _ in 0..<500 {
            let length = Int.random(in: 0...40, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(JSONValue.quoted(text) == reference(text), "\(Array(text.utf8))")
        }
    }
}
