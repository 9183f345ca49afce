import Testing
@testable import EntraCrypto

@Suite struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {   // RFC 4648 §10, without padding
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.encodeStandard([0xFB, 0xFF, 0xBF, 0x00]) == "+/+/AA==")
    }

    /// Between a prefix and a suffix, in one string: a token's `rh` claim is `0.A`, random bytes, a dot.
    @Test func encodesBetweenAPrefixAndASuffix() {
        // Short results stay in the string value itself; from 16 bytes on they are allocated.
        for plain in ["", "f", "fo", "foo", "foobar", "a token's random part", String(repeating: "0123456789", count: 7)] {
            let bytes = Array(plain.utf8)
            let expected = "0.A" + Base64URL.encode(bytes) + "."
            #expect(bytes.withUnsafeBufferPointer { Base64URL.encode($0, prefix: "0.A", suffix: ".") } == expected)
            #expect(bytes.withUnsafeBufferPointer { Base64URL.encode($0, prefix: "", suffix: "") } == Base64URL.encode(bytes))
        }
        let hint = SecureRandom.base64URLString(byteCount: 48, prefix: "0.A", suffix: ".")
        #expect(hint.hasPrefix("0.A") && hint.hasSuffix("."))
        #expect(hint.count == 3 + 64 + 1)
        #expect(Base64URL.decode(String(hint.dropFirst(3).dropLast()))?.count == 48)
        // More than the random pool serves at once is drawn apart, prefix and all.
        let long = SecureRandom.base64URLString(byteCount: 300, prefix: "1.A")
        #expect(long.hasPrefix("1.A") && Base64URL.decode(String(long.dropFirst(3)))?.count == 300)
        #expect(SecureRandom.base64URLString(byteCount: 0, prefix: "p", suffix: "s") == "ps")
    }

    @Test func acceptsPaddingWhenPresent() {
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
    }

    @Test(arguments: [
        "Zg=", "Zg===", "Z", "Zm9vY", "Zm9v+g", "Zm9v/g", "Zm 9v", "Zm9v\n", "Z=g=", "é", "Zh", "Zm9=",
    ])
    func rejectsMalformedInput(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func roundTripsEveryLengthAndByte() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            let text = Base64URL.encode(slice)
            #expect(!text.contains("="))
            #expect(Base64URL.decode(text) == slice)
        }
    }

    /// The two ways in (a string, bytes written at an offset) write the same text, which decodes back.
    @Test func encodingIntoAStringOrAtAnOffsetAgree() {
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            let text = Base64URL.encode(slice)
            #expect(text.utf8.count == Base64URL.encodedLength(length))
            #expect(Base64URL.decode(text) == slice)
            var written = [UInt8](repeating: UInt8(ascii: "#"), count: 3 + Base64URL.encodedLength(length) + 2)
            written.withUnsafeMutableBufferPointer { out in slice.withUnsafeBufferPointer { Base64URL.write($0, into: out, at: 3) } }
            #expect(written == Array(("###" + text + "##").utf8))
            #expect(Base64URL.encode(slice[...]) == text, "a slice takes the contiguous path too")
            #expect(Base64URL.encode(slice.lazy.map { $0 }) == text, "and a collection without contiguous storage the other")
        }
    }
}
