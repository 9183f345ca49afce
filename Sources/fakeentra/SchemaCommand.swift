import ArgumentParser
import Graph
import IdentityPlatform
import Scenarios

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print a JSON Schema the server enforces (for editors and CI)."
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case config, scenario, graph

        var text: String {
            switch self {
            case .config: ConfigurationSchema.text
            case .scenario: ScenarioSchema.text
            case .graph: GraphDataset.jsonSchema
            }
        }
    }

    @Argument(help: "config (the --config file), scenario (scenario files) or graph (the config's graph member).")
    var kind: Kind

    func run() {
        let text = kind.text
        print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }
}
