/// RFC 4648 §5 base64url, as JOSE uses it (RFC 7515 §2): no padding on output.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: alphabet)
    }

    /// Decodes base64url with or without `=` padding. Rejects the standard alphabet's `+` and `/`,
    /// whitespace, impossible lengths and non-zero unused trailing bits, so that one token has
    /// exactly one spelling (signatures cannot be made malleable by re-spelling them).
    package static func decode(_ text: String) -> [UInt8]? {
        var characters = Array(text.utf8)
        if let firstPad = characters.firstIndex(of: UInt8(ascii: "=")) {
            let padding = characters.count - firstPad
            guard characters.count % 4 == 0, padding <= 2,
                  characters[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return nil }
            characters.removeLast(padding)
        }
        guard characters.count % 4 != 1 else { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for character in characters {
            let value = decodeTable[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
                accumulator &= (1 << UInt32(bitCount)) - 1
            }
        }
        guard accumulator == 0 else { return nil }
        return output
    }

    /// Standard base64 with padding (RFC 4648 §4), as the JWK `x5c` member requires (RFC 7517 §4.7).
    package static func encodeStandard(_ bytes: some Collection<UInt8>) -> String {
        let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var text = encode(bytes, alphabet: standard)
        while text.utf8.count % 4 != 0 { text.append("=") }
        return text
    }

    private static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8]) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode($0, alphabet: alphabet) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { encode($0, alphabet: alphabet) }
    }

    /// The encoding of `input`, written straight into the string's storage (one allocation, no array).
    package static func encode(_ input: UnsafeBufferPointer<UInt8>) -> String { encode(input, alphabet: alphabet) }

    /// `prefix`, the encoding of `input`, then `suffix`, in one string's storage (a token's `rh` claim
    /// is `0.A…` and a dot around random bytes, a refresh token `1.A…`).
    package static func encode(_ input: UnsafeBufferPointer<UInt8>, prefix: StaticString, suffix: StaticString) -> String {
        // `withUTF8Buffer`: a one-character literal may be held as a scalar, with no bytes to point at.
        prefix.withUTF8Buffer { prefix in
            suffix.withUTF8Buffer { suffix in encode(input, alphabet: alphabet, prefix: prefix, suffix: suffix) }
        }
    }

    private static func encode(_ input: UnsafeBufferPointer<UInt8>, alphabet: [UInt8],
                               prefix: UnsafeBufferPointer<UInt8> = .init(start: nil, count: 0),
                               suffix: UnsafeBufferPointer<UInt8> = .init(start: nil, count: 0)) -> String {
        let length = encodedLength(input.count), total = prefix.count + length + suffix.count
        return String(unsafeUninitializedCapacity: total) { buffer in
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<prefix.count]).initialize(from: prefix)
            write(input, alphabet: alphabet, into: buffer, at: prefix.count)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[(prefix.count + length)..<total]).initialize(from: suffix)
            return total
        }
    }

    /// How many characters `count` bytes encode to (no padding).
    package static func encodedLength(_ count: Int) -> Int {
        let remainder = count % 3
        return count / 3 * 4 + (remainder == 0 ? 0 : remainder + 1)
    }

    /// Writes the encoding of `input` into `buffer` from `start` (room for `encodedLength(input.count)`).
    package static func write(_ input: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        // The buffer's subscript is checked in debug builds only: a caller short of room would write past it.
        precondition(start >= 0 && start + encodedLength(input.count) <= buffer.count, "no room for the base64url text")
        write(input, alphabet: alphabet, into: buffer, at: start)
    }

    private static func write(_ input: UnsafeBufferPointer<UInt8>, alphabet: [UInt8], into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        guard let source = input.baseAddress, let destination = buffer.baseAddress else { return }
        alphabet.withUnsafeBufferPointer { alphabet in
            let symbols = alphabet.baseAddress!
            func symbol(_ sextet: UInt32) -> UInt32 { UInt32(symbols[Int(truncatingIfNeeded: sextet & 63)]) }
            // Every token's payload and signature go through here: each group of three bytes becomes one
            // four-byte store, through pointers that advance without the overflow checks an index has.
            var read = source
            let end = source + input.count
            var written = UnsafeMutableRawPointer(destination + start)
            while end - read >= 3 {
                let group = UInt32(read[0]) << 16 | UInt32(read[1]) << 8 | UInt32(read[2])
                let characters = symbol(group >> 18) | symbol(group >> 12) << 8 | symbol(group >> 6) << 16 | symbol(group) << 24
                written.storeBytes(of: characters.littleEndian, as: UInt32.self)
                read += 3
                written += 4
            }
            let tail = written.assumingMemoryBound(to: UInt8.self)
            switch end - read {
            case 1:
                let group = UInt32(read[0]) << 16
                tail[0] = UInt8(symbol(group >> 18)); tail[1] = UInt8(symbol(group >> 12))
            case 2:
                let group = UInt32(read[0]) << 16 | UInt32(read[1]) << 8
                tail[0] = UInt8(symbol(group >> 18)); tail[1] = UInt8(symbol(group >> 12)); tail[2] = UInt8(symbol(group >> 6))
            default:
                break
            }
        }
    }
}
