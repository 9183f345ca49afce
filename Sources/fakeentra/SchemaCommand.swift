#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import B2C
import Graph
import IdentityPlatform
import Scenarios

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print a JSON Schema the server enforces (for editors and CI)."
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case config, scenario, graph, b2c

        var text: String {
            switch self {
            case .config: ConfigurationSchema.text
            case .scenario: ScenarioSchema.text
            case .graph: GraphDataset.jsonSchema
            case .b2c: B2CConfiguration.jsonSchemaFragment
            }
        }
    }

    @Argument(help: "config (the --config file), scenario (scenario files), graph or b2c (the config's graph and b2c members, each checked by its module).")
    var kind: Kind

    func run() {
        let text = kind.text
        print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }
}
