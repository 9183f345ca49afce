import FoundationGaps
package import EntraHTTP

/// The OData system query options of one request (`$select`, `$top`, …), parsed and checked against what a
/// resource supports. Option names compare ignoring case, as Graph's do.
package struct ODataQuery: Sendable, Equatable {
    package struct OrderKey: Sendable, Equatable {
        package var property: String
        package var descending: Bool
    }

    /// Every `$` option present, by lowercased name, with its raw value.
    package private(set) var options: [String: String] = [:]
    /// Parameters without `$` (calendarView's `startDateTime`, …).
    package private(set) var parameters: FormParameters = FormParameters()

    package init(_ query: FormParameters) {
        for pair in query.pairs {
            if pair.name.hasPrefix("$") {
                let name = pair.name.lowercased()
                if options[name] == nil { options[name] = pair.value }
            } else {
                parameters.append(pair.name, pair.value)
            }
        }
    }

    /// Rejects the first option not in `allowed` (lowercased names with `$`) with Graph's 400.
    package func requireOnly(_ allowed: Set<String>) throws(GraphError) {
        if let extra = options.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .unsupportedQueryOption(extra)
        }
    }

    /// `$select=a,b` as written (trimmed, empty items dropped); nil when absent.
    package var select: [String]? {
        guard let raw = options["$select"] else { return nil }
        let names = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
    }

    package func integer(_ name: String) throws(GraphError) -> Int? {
        guard let raw = options[name] else { return nil }
        guard let value = Int(raw.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            throw .invalidIntegerOption(name, value: raw)
        }
        return value
    }

    package var top: Int? { get throws(GraphError) { try integer("$top") } }
    package var skip: Int? { get throws(GraphError) { try integer("$skip") } }

    /// `$orderby=start/dateTime desc,subject`.
    package var orderBy: [OrderKey] {
        guard let raw = options["$orderby"] else { return [] }
        return raw.split(separator: ",").compactMap { item in
            let words = item.split(separator: " ", omittingEmptySubsequences: true)
            guard let property = words.first else { return nil }
            return OrderKey(property: String(property), descending: words.dropFirst().first?.lowercased() == "desc")
        }
    }

    /// Resolves `$select` names against a type's properties (ignoring case) to their canonical spelling,
    /// deduplicated in request order; nil when there is no `$select`.
    package func selected(from properties: [String], type: String) throws(GraphError) -> [String]? {
        guard let names = select else { return nil }
        var resolved: [String] = []
        for name in names {
            if name == "*" { return properties }
            guard let canonical = properties.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw .unknownProperty(name, type: type, inSelect: true)
            }
            if !resolved.contains(canonical) { resolved.append(canonical) }
        }
        return resolved
    }
}

/// Builds `@odata.nextLink`: the request's own URL on its origin with one option replaced.
struct NextLink {
    static func url(origin: String, request: HTTPRequest, setting name: String, to value: String) -> String {
        var pairs = FormParameters(decoding: request.rawQuery ?? "").pairs.filter { $0.name.lowercased() != name.lowercased() }
        pairs.append((name: name, value: value))
        let query = pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
        return origin + request.rawPath + "?" + query
    }

    /// Percent-encodes like `FormCoding`, but keeps `$` and a few delimiters literal as Graph's links do.
    private static func encode(_ text: String) -> String {
        FormCoding.encodeComponent(text)
            .replacingOccurrences(of: "%24", with: "$")
            .replacingOccurrences(of: "%2C", with: ",")
            .replacingOccurrences(of: "%2F", with: "/")
            .replacingOccurrences(of: "%3A", with: ":")
            .replacingOccurrences(of: "%27", with: "'")
    }
}
