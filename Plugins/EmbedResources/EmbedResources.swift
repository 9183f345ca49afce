import Foundation
import PackagePlugin

/// Compiles the published JSON files (schemas in docs/schemas, the scenario library in Scenarios/)
/// into the targets that serve them, at build time: the binary needs no files beside it, and the files
/// stay the one source (nothing generated is checked in). The table below says which target embeds
/// what, as which static member.
///
/// The generated source is written by `/bin/sh` (`printf` and `cat`) rather than by a generator built
/// from source: a tool built here would be compiled with the build's own flags, and the fuzz build's
/// `-sanitize=fuzzer` links libFuzzer's `main` into every executable, which breaks a tool's own.
@main
struct EmbedResources: BuildToolPlugin {
    /// One static `String` (for a folder, `[(file: String, text: String)]`) per published file or folder.
    struct Embedding {
        var type: String
        var member: String
        /// Relative to the package root.
        var path: String
        var isFolder = false
    }

    static let table: [String: [Embedding]] = [
        "IdentityPlatform": [Embedding(type: "ConfigurationSchema", member: "text", path: "docs/schemas/config.schema.json")],
        "Graph": [Embedding(type: "GraphDataset", member: "jsonSchema", path: "docs/schemas/graph.schema.json")],
        "B2C": [Embedding(type: "B2CConfiguration", member: "jsonSchemaFragment", path: "docs/schemas/b2c.schema.json")],
        "Scenarios": [
            Embedding(type: "ScenarioSchema", member: "text", path: "docs/schemas/scenario.schema.json"),
            Embedding(type: "ScenarioLibrary", member: "shippedFiles", path: "Scenarios", isFolder: true),
        ],
    ]

    /// The raw-string delimiter: the plugin checks that no embedded file could end or escape it.
    static let hashes = "####"

    /// Writes its arguments to the file named first, in order: `--file PATH` pairs are copied byte for
    /// byte, every other argument is written as is.
    static let script = #"out=$1; shift; { while [ $# -gt 0 ]; do if [ "$1" = --file ]; then cat "$2" || exit 1; shift 2; else printf '%s' "$1"; shift; fi; done; } > "$out""#

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let embeddings = Self.table[target.name] else {
            Diagnostics.error("EmbedResources has nothing to embed into \(target.name): add it to the plugin's table")
            return []
        }
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "Embedded\(target.name).swift")
        var pieces = ["// Generated at build time by the EmbedResources plugin (Plugins/EmbedResources): edit the JSON files, not this.\n"]
        var inputs: [URL] = []
        for embedding in embeddings {
            let url = root.appending(path: embedding.path)
            pieces.append("\nextension \(embedding.type) {\n")
            if embedding.isFolder {
                // Sorted, so the library's order does not depend on the file system.
                let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
                pieces.append("    /// \(embedding.path)/*.json, compiled in so the binary needs no files: (file name, text).\n")
                pieces.append("    package static let \(embedding.member): [(file: String, text: String)] = [\n")
                for name in names {
                    let file = url.appending(path: name)
                    pieces += ["        (\"\(name)\", "] + (try literal(file)) + ["),\n"]
                    inputs.append(file)
                }
                pieces.append("    ]\n")
            } else {
                pieces.append("    /// \(embedding.path), verbatim.\n")
                pieces += ["    package static let \(embedding.member): String = "] + (try literal(url)) + ["\n"]
                inputs.append(url)
            }
            pieces.append("}\n")
        }
        return [.buildCommand(displayName: "Embedding published JSON into \(target.name)",
                              executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: ["-c", Self.script, "embed", output.path] + pieces,
                              inputFiles: inputs, outputFiles: [output])]
    }

    /// A raw multi-line literal whose value is the file's bytes exactly.
    private func literal(_ file: URL) throws -> [String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        guard !text.contains("\"\"\"" + Self.hashes), !text.contains("\\" + Self.hashes), !text.contains("\r") else {
            throw EmbeddingError(message: "\(file.path) cannot be embedded: it contains a carriage return, \"\"\"\(Self.hashes) or \\\(Self.hashes)")
        }
        return [Self.hashes + "\"\"\"\n", "--file", file.path, "\n\"\"\"" + Self.hashes]
    }
}

struct EmbeddingError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
