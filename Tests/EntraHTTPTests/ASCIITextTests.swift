import EntraHTTP
import Testing

/// The byte-level text helpers every request goes through (client ids, header names, path segments)
/// must give what the character-level code gives, on every length around the eight-byte words they
/// read and wherever a non-ASCII byte sits.
@Suite struct ASCIITextTests {
    private static let pieces = ["a", "Z", "0", "-", ".", "~", "é", "É", "ß", "ſ", "\u{301}", "İ", "😀", "\u{7F}", "\u{80}", " "]

    @Test func plainASCIIFindsANonASCIIByteAtEveryPosition() {
        for length in 0...40 {
            let plain = String(repeating: "A", count: length)
            #expect(plain.isPlainASCII)
            for position in 0...length {
                var text = plain
                text.insert("é", at: text.index(text.startIndex, offsetBy: position))
                #expect(!text.isPlainASCII, "é at \(position) of \(length + 1)")
            }
        }
    }

    @Test func fastLowercasedIsLowercasedOnEveryLength() {
        for length in 0...40 {
            let upper = String((0..<length).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
            #expect(upper.fastLowercased == upper.lowercased())
            #expect(upper.lowercased().fastLowercased == upper.lowercased())
        }
    }

    @Test func fastLowercasedAndPlainASCIIAgreeWithTheStandardLibraryOnRandomText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<24, using: &generator)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            #expect(text.fastLowercased == text.lowercased(), "\(text.unicodeScalars.map { $0.value })")
            #expect(text.isPlainASCII == text.utf8.allSatisfy { $0 < 0x80 })
        }
    }

    @Test func textWithoutCapitalsComesBackUnchanged() {
        let id = "5c1a9e3d-7b2f-4e8a-9d6c-0f1e2d3c4b5a"
        #expect(id.fastLowercased == id)
        #expect("Content-Type".fastLowercased == "content-type")
        #expect("".fastLowercased == "")
    }
}
