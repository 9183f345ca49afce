import EntraHTTP
import Testing

/// The byte-level text helpers every request goes through (client ids, header names, path segments)
/// must give what the character-level code gives, on every length around the eight-byte words they
/// read and wherever a non-ASCII byte sits.
@Suite struct ASCIITextTests {
    // ASCII around the capitals and without the 0x20 bit, so that lowering too much shows.
    private static let pieces = ["a", "Z", "A", "0", "-", ".", "~", "@", "[", "\\", "_", "`", "{", "\t", "\u{0}", " ", "\u{7F}",
                                 "é", "É", "ß", "ſ", "\u{301}", "İ", "😀", "\u{80}"]

    // Failures are collected and checked once: thousands of #expect calls made the suite take half a minute.
    @Test func plainASCIIFindsAHighByteInEveryLaneOfEveryWord() {
        var missed: [String] = []
        for length in 1...40 {
            for position in 0..<length {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    bytes[position] = high
                    if bytes.withUnsafeBufferPointer(isPlainASCII) { missed.append("0x\(String(high, radix: 16)) at \(position) of \(length)") }
                }
            }
            if ![UInt8](repeating: 0x7F, count: length).withUnsafeBufferPointer(isPlainASCII) { missed.append("0x7F × \(length)") }
        }
        #expect(missed.isEmpty, "\(missed.prefix(5))")
    }

    @Test func plainASCIIFindsANonASCIIByteAtEveryPosition() {
        var missed: [String] = []
        for length in 0...40 {
            let plain = String(repeating: "A", count: length)
            if !plain.isPlainASCII { missed.append("A × \(length)") }
            for position in 0...length {
                var text = plain
                text.insert("é", at: text.index(text.startIndex, offsetBy: position))
                if text.isPlainASCII { missed.append("é at \(position) of \(length + 1)") }
            }
        }
        #expect(missed.isEmpty, "\(missed.prefix(5))")
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
        var differing: [[UInt32]] = []
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<24, using: &generator)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            if text.fastLowercased != text.lowercased() || text.isPlainASCII != text.utf8.allSatisfy({ $0 < 0x80 }) {
                differing.append(text.unicodeScalars.map(\.value))
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }

    @Test func textWithoutCapitalsComesBackUnchanged() {
        let id = "5c1a9e3d-7b2f-4e8a-9d6c-0f1e2d3c4b5a"
        #expect(id.fastLowercased == id)
        #expect("Content-Type".fastLowercased == "content-type")
        #expect("".fastLowercased == "")
    }

    /// `credentials(ofScheme:)` answers as the expression it replaced, `lowercased().hasPrefix("bearer ")`
    /// then `dropFirst(7)`, on values built around the prefix's edges: its letters in both cases, other
    /// spaces, the Kelvin sign, a combining mark after the space, accents and nothing after it.
    @Test func credentialsOfASchemeAnswerAsLowercasingTheWholeValueDid() {
        let starts = ["bearer", "Bearer", "BEARER", "bEaReR", "bearer ", "bearer\t", "bearerx", "bea", "", " bearer", "basic",
                      "b\u{0065}arer", "bearé", "\u{212A}earer", "Bear\u{0065}\u{0301}r"]
        let rests = ["", " ", " abc", " eyJ0eXAi.e30.c2ln", "  two", " \u{0301}x", " é", "\u{0301} x", " \u{212A}", "abc"]
        var differing: [String] = []
        for start in starts {
            for rest in rests {
                let value = start + rest
                let old: Substring? = value.lowercased().hasPrefix("bearer ") ? value.dropFirst(7) : nil
                if value.credentials(ofScheme: "bearer") != old { differing.append(value.debugDescription) }
            }
        }
        #expect(differing.isEmpty, "\(differing)")
        #expect("Bearer abc".credentials(ofScheme: "bearer") == "abc")
        #expect("Basic abc".credentials(ofScheme: "bearer") == nil)
    }

    /// `FieldNameSet` answers as the set of lower-cased names it replaced, asked about the lower-cased
    /// name: in every case mix, outside ASCII (the Kelvin sign lower-cases to `k`), and near the names' lengths.
    @Test func fieldNameSetAnswersAsASetOfLowercasedNames() {
        let names = ["cookie", "content-type", "x-ms-request-id", "location", "a"]
        let set: FieldNameSet = ["cookie", "content-type", "x-ms-request-id", "location", "a"]
        let reference = Set(names)
        let asked = ["cookie", "Cookie", "COOKIE", "coo\u{212A}ie", "CONTENT-TYPE", "Content-Type", "content-typ", "content-types",
                     "X-MS-Request-Id", "Location", "locatioN ", "A", "a", "", "b", "é", "ĺocation", "cooki\u{0065}\u{0301}", "x-ms-request-idx"]
        var differing: [String] = []
        for name in asked where set.contains(name) != reference.contains(name.lowercased()) { differing.append(name.debugDescription) }
        #expect(differing.isEmpty, "\(differing)")
        #expect(set.contains("COO\u{212A}IE"))
        #expect(!set.contains("x-ms-request"))
    }

    @Test func containsByteFindsABytePresentAtEveryPosition() {
        for length in 0...40 {
            let text = String(repeating: "a", count: length)
            #expect(!text.containsByte(UInt8(ascii: "%")))
            for position in 0..<length {
                var bytes = Array(text.utf8)
                bytes[position] = UInt8(ascii: "%")
                #expect(String(decoding: bytes, as: UTF8.self).containsByte(UInt8(ascii: "%")))
            }
        }
        #expect("é%".containsByte(UInt8(ascii: "%")))
        #expect(!"é".containsByte(UInt8(ascii: "%")))
    }
}
