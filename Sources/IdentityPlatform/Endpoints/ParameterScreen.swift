import EntraHTTP

/// What the real service refuses on `/authorize` and `/token` before reading a single value: a parameter
/// sent twice (AADSTS9000411, names compared without case) and `resource` on the v2.0 endpoints
/// (AADSTS901002), which take scopes.
enum ParameterScreen {
    static func check(_ parameters: FormParameters, version: EndpointVersion) throws(IdentityError) {
        var seen = Set<String>()
        for pair in parameters.pairs where !seen.insert(pair.name.fastLowercased).inserted {
            throw .duplicatedParameter(pair.name)
        }
        if version == .v2, parameters["resource"] != nil { throw .resourceNotSupported() }
    }
}
