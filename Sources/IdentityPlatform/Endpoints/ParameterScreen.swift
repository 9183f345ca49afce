import ExchangeKernel
import EntraHTTP

/// What the real service refuses on `/authorize` and `/token` before reading a single value: a parameter
/// sent twice (AADSTS9000411, names compared without case). (`resource` on v2.0 is checked against the
/// scopes once they are read: `ResourceIndicator`.)
enum ParameterScreen {
    static func check(_ parameters: FormParameters, version: EndpointVersion) throws(IdentityError) {
        if let repeated = firstRepeatedName(parameters.pairs) { throw .duplicatedParameter(repeated) }
    }

    /// The first name that an earlier one equals once both are lower-cased, as a set of the lower-cased
    /// names would find it. A request has a handful of parameters: comparing each with those before it
    /// costs less than building and hashing a set, on every token request.
    static func firstRepeatedName(_ pairs: [(name: String, value: String)]) -> String? {
        guard pairs.count <= 16 else {
            var seen = Set<String>()
            return pairs.first { !seen.insert($0.name.fastLowercased).inserted }?.name
        }
        // Each name lower-cased once, on the stack.
        return withUnsafeTemporaryAllocation(of: String.self, capacity: pairs.count) { lowered in
            _ = lowered.initialize(fromContentsOf: pairs.lazy.map(\.name.fastLowercased))
            defer { lowered.deinitialize() }
            for index in lowered.indices where lowered[..<index].contains(lowered[index]) { return pairs[index].name }
            return nil
        }
    }
}
