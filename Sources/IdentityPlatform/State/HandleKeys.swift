extension PlatformState {
    /// Reports every handle a store gains (true) or loses (false) by the key `handleKeys(for:)` names it
    /// with: how a scenario engine knows, without asking every world, which world issued the refresh
    /// token, code, device or user code or sign-in flow a request presents. For worlds that are not
    /// persisted (a persistence takes the same observers).
    package mutating func reportHandles(to report: @escaping @Sendable (String, Bool) -> Void) {
        authorizationCodes.observer = { key, value in report("c:" + key.hex, value != nil) }
        refreshTokens.observer = { key, value in report("r:" + key.hex, value != nil) }
        deviceCodes.observer = { key, value in report("d:" + key.hex, value != nil) }
        userCodes.observer = { key, value in report("u:" + key, value != nil) }
        pendingAuthorizations.observer = { key, value in report("p:" + key, value != nil) }
    }

    /// The keys `reportHandles` would have reported for a presented handle, whichever store holds it.
    package static func handleKeys(for handle: String) -> [String] {
        let digest = HandleDigest(handle).hex
        return ["r:" + digest, "c:" + digest, "d:" + digest, "u:" + handle, "u:" + handle.uppercased(), "p:" + handle]
    }
}
