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
    /// The member or element a pointer token names: a key in objects, an index in arrays.
    private func child(_ token: String) -> JSONValue? {
        switch kind {
        case .object: return self[token]
        case .array: return Int(token).flatMap { self[$0] }
        default: return nil
        }
    }

    /// The value a JSON pointer (RFC 6901, e.g. `/apps/0/redirectUris`) designates.
    package func value(atPointer pointer: String) -> JSONValue? {
        guard let tokens = JSONPointer.tokens(from: pointer) else { return nil }
        var current = self
        for token in tokens {
            guard let next = current.child(token) else { return nil }
            current = next
        }
        return current
    }

    /// The value a `Codable` coding path designates (as found in `DecodingError` contexts).
    /// Integer keys index arrays; string keys name object members.
    package func value(atCodingPath codingPath: [any CodingKey]) -> JSONValue? {
        let found = deepestValue(alongCodingPath: codingPath)
        return found.path.count == codingPath.count ? found.value : nil
    }

    /// A problem about the value at `pointer`, located at that value or, when the pointer leads
    /// past what the document contains, at the deepest enclosing value that exists. This is how
    /// checks made after decoding (unknown references, duplicate ids) report in the same format.
    package func problem(at pointer: String, file: String, _ message: String) -> JSONProblem {
        var current = self
        var reached: [String] = []
        for token in JSONPointer.tokens(from: pointer) ?? [] {
            guard let next = current.child(token) else { break }
            reached.append(token)
            current = next
        }
        return JSONProblem(file: file, location: current.location, path: JSONPointer.string(from: reached), message: message)
    }

    /// The deepest value along a coding path and the path to it: when the path leads into a
    /// missing member, problems point at the closest enclosing value that exists.
    func deepestValue(alongCodingPath codingPath: [any CodingKey]) -> (value: JSONValue, path: [PathToken]) {
        var current = self
        var path: [PathToken] = []
        for key in codingPath {
            let token: PathToken
            switch current.kind {
            case .object: token = .key(key.stringValue)
            case .array:
                guard let index = key.intValue else { return (current, path) }
                token = .index(index)
            default: return (current, path)
            }
            guard let next = current.child(token.pointerToken) else { break }
            path.append(token)
            current = next
        }
        return (current, path)
    }
}
