package import B2C
import FoundationGaps
package import Graph
package import IdentityPlatform
package import LocatedJSON

/// The whole `--config` file: the identity platform's part plus the sections other modules own, each
/// checked by its module so that every problem still names the file, line and column.
package struct LoadedConfiguration: Sendable {
    /// The identity directory, with the B2C tenant and its local accounts installed.
    package var identity: IdentityConfiguration
    package var graph: GraphDataset
    /// nil: no B2C tenant (no `b2c` section and `includeDefaults: false`).
    package var b2c: B2CConfiguration?
    /// Scenarios the file activates at start-up.
    package var bindings: [ConfiguredBinding]

    package init(identity: IdentityConfiguration, graph: GraphDataset, b2c: B2CConfiguration?, bindings: [ConfiguredBinding] = []) {
        var identity = identity
        b2c?.install(into: &identity.directory)
        self.identity = identity
        self.graph = graph
        self.b2c = b2c
        self.bindings = bindings
    }

    package static var embeddedDefault: LoadedConfiguration {
        LoadedConfiguration(identity: .embeddedDefault, graph: .embeddedDefault, b2c: .embeddedDefault)
    }

    /// nil: the embedded defaults.
    package static func load(file: String?) throws(JSONProblems) -> LoadedConfiguration {
        guard let file else { return .embeddedDefault }
        let identity = try ConfigurationLoader.load(file: file)
        let baseDirectory = (file).deletingLastPathComponent
        let graph = try GraphDataset.load(section: identity.sections["graph"], file: file, baseDirectory: baseDirectory)
        let b2c = try B2CConfiguration.load(section: identity.sections["b2c"], file: file, includeDefaults: identity.includeDefaults)
        let bindings = try ConfiguredBinding.parse(section: identity.sections["bindings"], file: file)
        return LoadedConfiguration(identity: identity, graph: graph, b2c: b2c, bindings: bindings)
    }
}
