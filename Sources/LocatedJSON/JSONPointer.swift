/// RFC 6901 JSON pointers: building them for problems and following them back into a tree.
enum JSONPointer {
    /// `["a/b", "0"]` → `"/a~1b/0"`.
    static func string(from tokens: [String]) -> String {
        tokens.map { "/" + escape($0) }.joined()
    }

    static func escape(_ token: String) -> String {
        token.replacingAll("~", with: "~0").replacingAll("/", with: "~1")
    }

    /// `"/a~1b/0"` → `["a/b", "0"]`; nil when the pointer is not "" and does not start with "/".
    static func tokens(from pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).replacingAll("~1", with: "/").replacingAll("~0", with: "~")
        }
    }
}

extension String {
    /// Plain substring replacement without Foundation.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

extension JSONValue {
    /// The value a JSON pointer (RFC 6901, e.g. `/apps/0/redirectUris`) designates.
    public func value(atPointer pointer: String) -> JSONValue? {
        guard let tokens = JSONPointer.tokens(from: pointer) else { return nil }
        var current = self
        for token in tokens {
            switch current.kind {
            case .object:
                guard let next = current[token] else { return nil }
                current = next
            case .array:
                guard let index = Int(token), let next = current[index] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// The value a `Codable` coding path designates (as found in `DecodingError` contexts).
    /// Integer keys index arrays; string keys name object members.
    public func value(atCodingPath codingPath: [any CodingKey]) -> JSONValue? {
        var current = self
        for key in codingPath {
            switch current.kind {
            case .object:
                guard let next = current[key.stringValue] else { return nil }
                current = next
            case .array:
                guard let index = key.intValue, let next = current[index] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// The deepest value along a coding path and the JSON pointer to it: when the path leads
    /// into a missing member, problems point at the closest enclosing value that exists.
    func deepestValue(alongCodingPath codingPath: [any CodingKey]) -> (value: JSONValue, path: [PathToken]) {
        var current = self
        var path: [PathToken] = []
        for key in codingPath {
            let step: (JSONValue, PathToken)?
            switch current.kind {
            case .object: step = current[key.stringValue].map { ($0, .key(key.stringValue)) }
            case .array: step = key.intValue.flatMap { index in current[index].map { ($0, .index(index)) } }
            default: step = nil
            }
            guard let (next, token) = step else { break }
            path.append(token)
            current = next
        }
        return (current, path)
    }
}
