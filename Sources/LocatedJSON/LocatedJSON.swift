#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Entry points: read, parse, validate and decode JSON files so that every problem comes back as
/// `file:line:column: message`.
///
/// ```swift
/// let schema = try JSONSchema(file: "Schemas/config.schema.json")
/// let config = try LocatedJSON.decode(Config.self, fromFile: "config.json", schema: schema)
/// ```
package enum LocatedJSON {
    /// Parses strict RFC 8259 JSON into a located tree.
    ///
    /// Throws the first syntax error alone, or every duplicate key at once.
    package static func parse(_ bytes: [UInt8], file: String, limits: JSONParseLimits = .default) throws(JSONProblems) -> JSONValue {
        var parser = JSONParser(bytes: bytes, file: file, limits: limits)
        let value: JSONValue
        do {
            value = try parser.parseDocument()
        } catch {
            throw JSONProblems([error])
        }
        guard parser.duplicateKeys.isEmpty else { throw JSONProblems(parser.duplicateKeys) }
        return value
    }

    /// The bytes of a file, or a problem naming it when it cannot be read.
    package static func readFile(_ path: String) throws(JSONProblems) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JSONProblems([JSONProblem(file: path, location: .startOfFile, path: "", message: "cannot read the file")])
        }
        return [UInt8](data)
    }

    /// Parses and validates; throws every schema violation at once, in document order.
    package static func validate(_ bytes: [UInt8], file: String, schema: JSONSchema) throws(JSONProblems) -> JSONValue {
        let tree = try parse(bytes, file: file)
        let problems = schema.validate(tree, file: file)
        guard problems.isEmpty else { throw JSONProblems(problems) }
        return tree
    }

    /// Parses, validates against `schema` (when given), then decodes with `decoder`.
    ///
    /// A `DecodingError` that the schema did not anticipate is still reported at the location of
    /// the value it concerns.
    package static func decode<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], file: String, schema: JSONSchema? = nil,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(JSONProblems) -> T {
        try decodeDocument(type, from: bytes, file: file, schema: schema, decoder: decoder).value
    }

    /// Decodes as `decode(_:from:file:schema:decoder:)` does and keeps the located tree, for
    /// checks that only make sense on the decoded value but must still point into the file.
    package static func decodeDocument<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], file: String, schema: JSONSchema? = nil,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(JSONProblems) -> DecodedJSON<T> {
        let tree = if let schema { try validate(bytes, file: file, schema: schema) } else { try parse(bytes, file: file) }
        return try decodeDocument(type, from: bytes, tree: tree, file: file, decoder: decoder)
    }

    /// Decodes `bytes` whose located `tree` the caller already has (parsed and validated), for a
    /// caller that reads part of the tree itself first; decoding errors are located as above.
    package static func decodeDocument<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], tree: JSONValue, file: String, decoder: JSONDecoder
    ) throws(JSONProblems) -> DecodedJSON<T> {
        do {
            return DecodedJSON(value: try decoder.decode(type, from: Data(bytes)), tree: tree, file: file)
        } catch {
            throw JSONProblems([problem(for: error, in: tree, file: file)])
        }
    }

    /// Reads a file, then decodes it as `decode(_:from:file:schema:decoder:)` does.
    package static func decode<T: Decodable>(
        _ type: T.Type, fromFile path: String, schema: JSONSchema? = nil, decoder: JSONDecoder = JSONDecoder()
    ) throws(JSONProblems) -> T {
        try decode(type, from: readFile(path), file: path, schema: schema, decoder: decoder)
    }

    /// Locates an error thrown while decoding `tree` (a `DecodingError`'s coding path is followed
    /// through the tree; other errors are reported at the start of the document).
    package static func problem(for error: any Error, in tree: JSONValue, file: String) -> JSONProblem {
        guard let decodingError = error as? DecodingError else {
            return JSONProblem(file: file, location: tree.location, path: "", message: String(describing: error))
        }
        let context: DecodingError.Context
        switch decodingError {
        case .typeMismatch(_, let errorContext), .valueNotFound(_, let errorContext),
             .keyNotFound(_, let errorContext), .dataCorrupted(let errorContext):
            context = errorContext
        @unknown default:
            return JSONProblem(file: file, location: tree.location, path: "", message: String(describing: error))
        }
        let (value, path) = tree.deepestValue(alongCodingPath: context.codingPath)
        let subject = Wording.subject(path)
        let message: String
        switch decodingError {
        case .typeMismatch(let type, _) where path.count == context.codingPath.count,
             .valueNotFound(let type, _) where path.count == context.codingPath.count:
            message = "\(subject) must be \(expectedKind(type)), found \(Wording.describe(value))"
        case .keyNotFound(let key, _) where path.count == context.codingPath.count:
            message = "missing required field \"\(key.stringValue)\""
        case .dataCorrupted where path.count == context.codingPath.count && !path.isEmpty:
            message = "\(subject) has an invalid value \(Wording.render(value)) (\(context.debugDescription))"
        default:
            // Includes paths leading past what the file contains: reported where it stops matching.
            message = "\(subject): \(context.debugDescription)"
        }
        return JSONProblem(file: file, location: value.location, path: JSONPointer.string(from: path.map(\.pointerToken)),
                           message: message)
    }

    /// How a message names the JSON a Swift type is decoded from.
    private static func expectedKind(_ type: Any.Type) -> String {
        let integers: [Any.Type] = [Int.self, Int8.self, Int16.self, Int32.self, Int64.self,
                                    UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self]
        if type == String.self { return JSONType.string.withArticle }
        if type == Bool.self { return JSONType.boolean.withArticle }
        if integers.contains(where: { $0 == type }) { return JSONType.integer.withArticle }
        if type == Double.self || type == Float.self { return JSONType.number.withArticle }
        let name = String(describing: type)
        if name.hasPrefix("Dictionary") { return JSONType.object.withArticle }
        if name.hasPrefix("Array") { return JSONType.array.withArticle }
        return "a value of type \(name)"
    }
}

/// A decoded value together with the located tree it came from.
package struct DecodedJSON<Value> {
    package var value: Value
    package var tree: JSONValue
    package var file: String

    package init(value: Value, tree: JSONValue, file: String) {
        self.value = value
        self.tree = tree
        self.file = file
    }

    /// A problem about the value at a JSON pointer (see `JSONValue.problem(at:file:_:)`).
    package func problem(at pointer: String, _ message: String) -> JSONProblem {
        tree.problem(at: pointer, file: file, message)
    }
}

extension DecodedJSON: Sendable where Value: Sendable {}
