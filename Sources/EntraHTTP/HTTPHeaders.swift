/// An ordered list of header fields; look-ups ignore ASCII case as RFC 9110 requires.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package private(set) var fields: [Field]

    package init(_ fields: [Field] = []) { self.fields = fields }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    package func values(for name: String) -> [String] {
        fields.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    /// How many fields are called `name`, without collecting their values.
    func count(of name: String) -> Int {
        var count = 0
        for field in fields where field.name.equalsIgnoringASCIICase(name) { count += 1 }
        return count
    }

    package func contains(_ name: String) -> Bool { self[name] != nil }

    package mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every value of `name` by one.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    package mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }
}

extension StringProtocol {
    /// Runs `body` on the text's UTF-8 bytes where they are stored. `var copy = text; copy.withUTF8`
    /// retained and released the string's storage each time; only a bridged or non-contiguous text is
    /// copied here.
    @inlinable package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(self)
        return try copy.withUTF8(body)
    }
}

extension String {
    /// True when every byte is ASCII: the byte-level fast paths (case, splitting) apply.
    package var isPlainASCII: Bool {
        // On the string's storage, a word at a time: `utf8.allSatisfy` cost about thirty instructions a
        // byte, and client ids are compared this way with every registered app on every token request.
        withUTF8Bytes(EntraHTTP.isPlainASCII)
    }

    /// Whether the text holds `byte`, searched on its storage: `utf8.contains` walks a native string's
    /// view byte by byte through its index type, several times slower, and this is asked of every
    /// header value written and every path and parameter read.
    package func containsByte(_ byte: UInt8) -> Bool {
        withUTF8Bytes { $0.contains(byte) }
    }

    /// The same text as `lowercased()`, without its copy when no byte could change: ids, URLs and most
    /// names a request carries are already lower-case ASCII, and `lowercased()` copies every time.
    package var fastLowercased: String {
        let mayChange = utf8.withContiguousStorageIfAvailable { $0.contains { ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 } }
        return mayChange == false ? self : lowercased()
    }

    /// What follows `scheme` and a space at the start of an `Authorization` value (`Bearer abc` → `abc`),
    /// the scheme's case ignored; nil for another scheme. It answers as `lowercased().hasPrefix(scheme + " ")`
    /// then `dropFirst`, without lower-casing (copying) the whole value: a bearer token is over a kilobyte.
    package func credentials(ofScheme scheme: String) -> Substring? {
        let length = scheme.utf8.count
        let head = utf8.prefix(length + 2)
        // Outside ASCII a letter can lower-case to an ASCII one (the Kelvin sign) and a combining mark joins
        // the space into one character: there the comparison by characters decides, as it always did.
        guard head.allSatisfy({ $0 < 0x80 }), scheme.isPlainASCII else {
            return lowercased().hasPrefix(scheme.lowercased() + " ") ? dropFirst(scheme.count + 1) : nil
        }
        guard head.count > length, head[head.index(head.startIndex, offsetBy: length)] == UInt8(ascii: " "),
              String(Substring(head.prefix(length))).equalsIgnoringASCIICase(scheme) else { return nil }
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: length + 1)...])
    }

    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Byte by byte on the strings' storage: every header lookup of every request comes here.
        let compared = a.withContiguousStorageIfAvailable { a in
            b.withContiguousStorageIfAvailable { b in
                for index in 0..<a.count where asciiLower(a[index]) != asciiLower(b[index]) { return false }
                return true
            }
        }
        if let compared, let compared { return compared }
        return zip(a, b).allSatisfy { asciiLower($0) == asciiLower($1) }
    }
}

/// The bytes as a string when they are valid UTF-8, else nil: `String(validating:as:)`, which looks up
/// generic metadata at run time on every call, is left for text that is not plain ASCII (a request's
/// target and its form's escaped values are decoded this way on every request).
package func validUTF8String(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    isPlainASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
}

/// True when every byte is below 0x80, tested eight bytes at a time.
package func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    var seen: UInt64 = 0
    while index + 8 <= bytes.count {
        seen |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
        index += 8
    }
    while index < bytes.count {
        seen |= UInt64(bytes[index])
        index += 1
    }
    return seen & 0x8080_8080_8080_8080 == 0
}

@inline(__always) package func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
}

/// Field names, matched as `Set(names).contains(name.lowercased())` would match them, without lower-casing
/// or hashing the name asked about when it is ASCII (as every field name read from the wire is): the
/// journal and the secret harvest test each field of each exchange against one of these.
package struct FieldNameSet: Sendable, ExpressibleByArrayLiteral {
    /// Lower-case, as given, by their length in bytes: a name asked about is compared with those of its length only.
    private let namesByLength: [[String]]
    private let lowercasedNames: Set<String>

    package init(arrayLiteral names: String...) {
        precondition(names.allSatisfy { $0 == $0.lowercased() }, "field names are given in lower case")
        var byLength = [[String]](repeating: [], count: (names.map(\.utf8.count).max() ?? 0) + 1)
        for name in names { byLength[name.utf8.count].append(name) }
        namesByLength = byLength
        lowercasedNames = Set(names)
    }

    package func contains(_ name: String) -> Bool {
        // Outside ASCII, lower-casing can turn a character into an ASCII letter (the Kelvin sign into `k`).
        guard name.isPlainASCII else { return lowercasedNames.contains(name.lowercased()) }
        let length = name.utf8.count
        guard length < namesByLength.count else { return false }
        return namesByLength[length].contains { $0.equalsIgnoringASCIICase(name) }
    }
}
