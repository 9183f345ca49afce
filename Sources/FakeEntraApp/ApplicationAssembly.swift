import EntraCrypto
package import ExchangeKernel
package import IdentityPlatform
package import Scenarios

/// The steps `fakeentra serve` and `FakeEntraTesting` both take from a loaded configuration to a
/// running application, kept here so the CLI and the test library cannot drift apart.
extension LoadedConfiguration {
    /// The platform's service for this configuration: the file's options, with `strict` and `autoLogin`
    /// given elsewhere (the command line, a test's configuration) winning over the file.
    package func makeService(keys: SigningKeyRing, clock: any TimeSource = VirtualClock(), strict: Bool = false, autoLogin: Bool = false) -> IdentityService {
        var options = identity.options
        if strict { options.strict = true }
        if autoLogin { options.autoLogin = true }
        options.extensionTransport = Self.extensionTransport
        return IdentityService(directory: identity.directory, keys: keys, clock: clock, options: options)
    }

    /// One HTTP transport for every service the process makes.
    private static let extensionTransport = ExtensionTransportReference(ExtensionHTTPTransport())

    /// The shipped scenarios plus the files of `directories` (an empty list: the shipped ones only).
    package func scenarioLibrary(adding directories: [String]) throws(ScenarioValidationReport) -> ScenarioLibrary {
        let shipped = try ScenarioLibrary.shipped(baseDirectory: identity.directory)
        guard !directories.isEmpty else { return shipped }
        return shipped.merging(try ScenarioLibrary.load(directories: directories, baseDirectory: identity.directory))
    }
}
