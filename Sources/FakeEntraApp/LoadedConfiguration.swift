import Foundation
import Graph
import IdentityPlatform
import LocatedJSON

/// The whole `--config` file: the identity platform's part plus the sections other modules own, each
/// checked by its module so that every problem still names the file, line and column.
public struct LoadedConfiguration: Sendable {
    public var identity: IdentityConfiguration
    public var graph: GraphDataset

    public init(identity: IdentityConfiguration, graph: GraphDataset) {
        self.identity = identity
        self.graph = graph
    }

    public static let embeddedDefault = LoadedConfiguration(identity: .embeddedDefault, graph: .embeddedDefault)

    /// nil: the embedded defaults.
    public static func load(file: String?) throws(JSONProblems) -> LoadedConfiguration {
        guard let file else { return .embeddedDefault }
        let identity = try ConfigurationLoader.load(file: file)
        let baseDirectory = (file as NSString).deletingLastPathComponent
        let graph = try GraphDataset.load(section: identity.sections["graph"], file: file, baseDirectory: baseDirectory)
        return LoadedConfiguration(identity: identity, graph: graph)
    }
}
