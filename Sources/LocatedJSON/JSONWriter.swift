/// The one JSON writer: appends JSON text to a byte buffer. Token responses, error bodies, journals and
/// Graph documents all render through it, so the hot path (a token per request) makes no intermediate
/// strings and every writer escapes exactly alike.
package struct JSONWriter: Sendable {
    package var bytes: [UInt8]
    /// Whether the next member or element needs a comma before it.
    private var needsSeparator = false

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsSeparator = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsSeparator = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsSeparator = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsSeparator = true
    }

    /// A member name; the value written next belongs to it.
    package mutating func key(_ name: String) {
        separate()
        Self.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsSeparator = false
    }

    package mutating func string(_ value: String) {
        separate()
        Self.appendQuoted(value, to: &bytes)
        needsSeparator = true
    }

    package mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)   // a small string: no allocation
        needsSeparator = true
    }

    package mutating func null() { raw("null") }

    /// A number already written as a JSON literal (`12.345`), by a caller that formats its own.
    package mutating func number(_ literal: String) {
        assert(literal.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        raw(literal)
    }

    package mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    /// Text that already is JSON: only this module's own literals and numbers.
    mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsSeparator = true
    }

    /// Bytes that already are JSON.
    mutating func raw(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsSeparator = true
    }

    private mutating func separate() {
        if needsSeparator { bytes.append(UInt8(ascii: ",")) }
    }

    /// `string` as a JSON string literal (RFC 8259 §7): quotes, backslashes and control characters
    /// escaped; `/` and non-ASCII characters as they are. Swift strings are valid UTF-8 and no byte of a
    /// multi-byte sequence is below 0x80, so working on bytes escapes exactly the right characters.
    package static func appendQuoted(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        // On the string's own storage: a mutable copy for `withUTF8` retained and released it for every
        // name and value written; only a bridged string is copied.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &buffer) }) == nil {
            var text = string
            text.withUTF8 { appendEscaped($0, to: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        guard let base = text.baseAddress else { return }
        var clean = 0   // start of the run of bytes that need no escape
        var index = 0
        while index < text.count {
            // Eight bytes at a time while none needs an escape: tokens make most of an answer's bytes.
            if index + 8 <= text.count, !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = text[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            let escaped = index - 1
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: text[clean..<escaped]))
            clean = index
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: text[clean..<text.count]))
    }

    /// Whether any of the eight bytes in `word` may be below 0x20, a quote or a backslash. The classic
    /// SWAR tests can answer yes for a byte above one that matches, never no for a byte that matches.
    @inline(__always) private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let belowSpace = (word &- ones &* 0x20) & ~word & highs != 0
        return belowSpace || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}

extension JSONValue {
    /// `string` as a JSON string literal (see `JSONWriter.appendQuoted`).
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 2)
        JSONWriter.appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue {
    /// Writes the value compactly: members in source order, numbers as written.
    package func write(to writer: inout JSONWriter) {
        switch kind {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .number(let number): writer.raw(number.literal)
        case .string(let text): writer.string(text)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// An object from ordered pairs, written without building the tree: a token's claims and answers
    /// assembled member by member.
    package static func writeObject(_ members: [(String, JSONValue)], to writer: inout JSONWriter) {
        writer.beginObject()
        for index in members.indices {
            writer.key(members[index].0)
            members[index].1.write(to: &writer)
        }
        writer.endObject()
    }

    /// The compact JSON text (see `write(to:)`) as bytes, for bodies.
    package var bytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// `bytes` as a string, for claims and text carried verbatim.
    package var compactText: String { String(decoding: bytes, as: UTF8.self) }
}
