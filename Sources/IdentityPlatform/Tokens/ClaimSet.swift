package import FoundationGaps
package import LocatedJSON

/// An ordered JSON object for token payloads and response bodies: members appear in the order the real
/// service writes them, which keeps captures and journals readable and diffable.
package struct ClaimSet: Sendable {
    package private(set) var members: [(String, JSONValue)] = []

    package init() {}

    /// Room for `capacity` members at once: a token's claims are set one by one, and the array would be
    /// reallocated at each power of two.
    package init(capacity: Int) { members.reserveCapacity(capacity) }

    package mutating func set(_ name: String, _ value: String?) {
        guard let value else { return }
        members.append((name, .string(value)))
    }

    package mutating func set(_ name: String, _ value: Int) {
        members.append((name, .int(value)))
    }

    package mutating func set(_ name: String, _ value: Bool) {
        members.append((name, .bool(value)))
    }

    package mutating func set(_ name: String, _ values: [String]) {
        members.append((name, .strings(values)))
    }

    /// Any JSON value (`null`, a nested object, an array of objects).
    package mutating func set(_ name: String, _ value: JSONValue) {
        members.append((name, value))
    }

    /// Replaces a member (or appends it), as scenario claim overrides ask.
    package mutating func override(_ name: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.0 == name }) {
            members[index].1 = value
        } else {
            members.append((name, value))
        }
    }

    package mutating func override(with claims: [String: JSONValue]) {
        guard !claims.isEmpty else { return }   // every token asks, nearly always with none
        for name in claims.keys.sorted() { override(name, claims[name]!) }
    }

    /// NumericDate: whole seconds since the epoch.
    package mutating func set(_ name: String, _ date: Date) {
        set(name, Int(saturating: date.timeIntervalSince1970.rounded(.down)))
    }

    package var json: String { String(decoding: bytes, as: UTF8.self) }

    /// The last value set as a string under `name` (what a token says, read without rendering it).
    package func string(_ name: String) -> String? {
        for (member, value) in members.reversed() where member == name {
            return value.string
        }
        return nil
    }

    /// A whole number set under `name` (NumericDate claims), also when a scenario wrote it.
    package func integer(_ name: String) -> Int? {
        for (member, value) in members.reversed() where member == name {
            return value.int
        }
        return nil
    }

    package func strings(_ name: String) -> [String]? {
        for (member, value) in members.reversed() where member == name {
            return value.strings
        }
        return nil
    }

    package var bytes: [UInt8] {
        var writer = JSONWriter(capacity: estimatedSize)
        JSONValue.writeObject(members, to: &writer)
        return writer.bytes
    }

    /// Room for the members as JSON unless they need escaping: a token response holds a token of over a
    /// kilobyte, and a writer that outgrows its first buffer copies what it wrote.
    private var estimatedSize: Int {
        var size = 2
        for (name, value) in members {
            size += name.utf8.count + 4
            switch value.kind {
            case .string(let text): size += text.utf8.count + 2
            case .number, .bool, .null: size += 20
            case .array(let items): size += 2 + items.reduce(0) { $0 + ($1.string?.utf8.count ?? 16) + 3 }
            case .object: size += 64
            }
        }
        return size
    }
}

extension Int {
    /// Seconds as an integer even when a scenario or client asked for an absurd amount (no overflow trap).
    /// Package-wide: the B2C module's token responses use it too.
    package init(saturating value: Double) {
        if let exact = Int(exactly: value.rounded(.towardZero)) {
            self = exact
        } else {
            self = value.isNaN ? 0 : (value > 0 ? Int.max : Int.min)
        }
    }
}
