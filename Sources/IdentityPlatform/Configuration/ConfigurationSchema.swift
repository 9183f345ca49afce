package import LocatedJSON

/// The JSON Schema of `--config` files. Its `text` is docs/schemas/config.schema.json, compiled in by the
/// EmbedResources plugin, so editors and the loader agree.
/// The `graph` and `b2c` sections belong to their modules: extend their subschemas here.
package enum ConfigurationSchema {
    /// Compiled once; the literal is checked by tests, so compiling it cannot fail at run time.
    package static let schema: JSONSchema = {
        do {
            return try JSONSchema(json: Array(text.utf8), file: "config.schema.json")
        } catch {
            preconditionFailure("embedded configuration schema does not compile: \(error)")
        }
    }()
}
