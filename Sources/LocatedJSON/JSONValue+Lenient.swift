/// Reading JSON the way common readers (Foundation's, JavaScript's `JSON.parse`) read
/// it, for text that must be understood wherever strict JSON would refuse it: the journal cannot leave a
/// secret unredacted because a client repeated a member or ended a list with a comma.
extension LocatedJSON {
    /// A body read leniently: UTF-16 or UTF-32 text is read once transcoded (`utf8Text`), a comma may close an
    /// array or object, and a repeated member name keeps its last value, in the place of its first. nil when it
    /// is not JSON even so. Strict JSON comes back as `parse(body:)` gives it.
    package static func parse(lenientBody body: some Collection<UInt8>, source: String = "body") -> JSONValue? {
        guard let text = utf8Text(Array(body)) else { return nil }
        var parser = JSONParser(bytes: text, file: source, limits: .default)
        parser.acceptsTrailingCommas = true
        guard let value = try? parser.parseDocument() else { return nil }
        return parser.duplicateKeys.isEmpty ? value : value.mergingRepeatedKeys
    }

    /// `parse(lenientBody:)` of an object; nil for any other JSON or for text that is not JSON even so.
    package static func object(lenientBody body: some Collection<UInt8>, source: String = "body") -> JSONValue? {
        guard let value = parse(lenientBody: body, source: source), value.members != nil else { return nil }
        return value
    }

    /// `bytes` as UTF-8: transcoded when a byte order mark, or the zero bytes around the first characters,
    /// say UTF-16 or UTF-32 (RFC 4627 §3: a JSON text starts with two ASCII characters, so the pattern of
    /// zeros in its first four bytes names the encoding); nil when the bytes are not valid in that encoding.
    /// UTF-8, with or without its byte order mark, is returned as it is.
    static func utf8Text(_ bytes: [UInt8]) -> [UInt8]? {
        guard let encoding = WideEncoding.detected(in: bytes) else { return bytes }
        let units = bytes[encoding.byteOrderMarkLength...]
        guard units.count % encoding.width == 0 else { return nil }
        let text: String?
        if encoding.width == 2 {
            let codeUnits = stride(from: units.startIndex, to: units.endIndex, by: 2).map { index -> UInt16 in
                let first = UInt16(units[index]), second = UInt16(units[index + 1])
                return encoding.isBigEndian ? first << 8 | second : second << 8 | first
            }
            text = String(validating: codeUnits, as: UTF16.self)
        } else {
            let codeUnits = stride(from: units.startIndex, to: units.endIndex, by: 4).map { index -> UInt32 in
                var unit: UInt32 = 0
                for offset in 0..<4 {
                    unit = unit << 8 | UInt32(units[index + (encoding.isBigEndian ? offset : 3 - offset)])
                }
                return unit
            }
            text = String(validating: codeUnits, as: UTF32.self)
        }
        return text.map { Array($0.utf8) }
    }
}

/// UTF-16 or UTF-32, as a body's first bytes show it.
private struct WideEncoding {
    /// Bytes per code unit: 2 or 4.
    var width: Int
    var isBigEndian: Bool
    var byteOrderMarkLength: Int

    /// nil for UTF-8 (with or without its byte order mark, which the parser skips).
    static func detected(in bytes: [UInt8]) -> WideEncoding? {
        // Every mark and pattern below has a zero, 0xFE or 0xFF in its first byte or a zero in its second.
        guard bytes.count >= 2, bytes[0] == 0 || bytes[0] >= 0xFE || bytes[1] == 0 else { return nil }
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return WideEncoding(width: 4, isBigEndian: true, byteOrderMarkLength: 4) }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return WideEncoding(width: 4, isBigEndian: false, byteOrderMarkLength: 4) }
        if bytes.starts(with: [0xFE, 0xFF]) { return WideEncoding(width: 2, isBigEndian: true, byteOrderMarkLength: 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return WideEncoding(width: 2, isBigEndian: false, byteOrderMarkLength: 2) }
        if bytes.count >= 4 {
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0, 0, 0, _): return WideEncoding(width: 4, isBigEndian: true, byteOrderMarkLength: 0)
            case (_, 0, 0, 0): return WideEncoding(width: 4, isBigEndian: false, byteOrderMarkLength: 0)
            case (0, _, 0, _): return WideEncoding(width: 2, isBigEndian: true, byteOrderMarkLength: 0)
            case (_, 0, _, 0): return WideEncoding(width: 2, isBigEndian: false, byteOrderMarkLength: 0)
            default: return nil
            }
        }
        guard bytes[0] == 0 || bytes[1] == 0 else { return nil }
        return WideEncoding(width: 2, isBigEndian: bytes[0] == 0, byteOrderMarkLength: 0)
    }
}

extension JSONValue {
    /// Every object's repeated member names merged as JavaScript's `JSON.parse` and Foundation merge them:
    /// the last value, in the place of the first.
    var mergingRepeatedKeys: JSONValue {
        switch kind {
        case .array(let elements):
            return JSONValue(.array(elements.map(\.mergingRepeatedKeys)), at: location)
        case .object(let members):
            var merged: [JSONMember] = []
            merged.reserveCapacity(members.count)
            var places: [String: Int] = [:]
            for member in members {
                let value = member.value.mergingRepeatedKeys
                if let place = places[member.key] {
                    merged[place].value = value
                } else {
                    places[member.key] = merged.count
                    merged.append(JSONMember(key: member.key, keyLocation: member.keyLocation, value: value))
                }
            }
            return JSONValue(.object(merged), at: location)
        case .null, .bool, .number, .string:
            return self
        }
    }
}
