import EntraCrypto
import EntraHTTP
import Foundation
import LocatedJSON

/// Removes secrets and tokens from what the journal keeps, leaving a trace a reader can correlate:
/// the length, and for tokens and codes a short hash (equal values give equal hashes).
public enum Redaction {
    /// Parameter and JSON member names whose values are credentials or tokens.
    public static let sensitiveNames: Set<String> = [
        "client_secret", "password", "code", "code_verifier", "refresh_token", "assertion", "client_assertion",
        "access_token", "id_token", "device_code", "id_token_hint", "token", "otc", "newpassword", "currentpassword",
        // The sign-in pages' password fields (Microsoft's names).
        "passwd", "confirmnewpassword",
        // B2C's pages (issue 4): sign-up and password reset confirm the new password in this field.
        "reenterpassword",
    ]

    /// Low-entropy secrets get their length only: a hash of a password could be looked up in a dictionary.
    static let lengthOnlyNames: Set<String> = ["client_secret", "password", "newpassword", "currentpassword", "passwd", "confirmnewpassword", "reenterpassword"]

    public static func isSensitive(_ name: String) -> Bool { sensitiveNames.contains(name.lowercased()) }

    public static func redact(_ value: String, name: String) -> String {
        if lengthOnlyNames.contains(name.lowercased()) { return "[redacted \(value.count) chars]" }
        return "[redacted \(value.count) chars sha256:\(shortHash(value))]"
    }

    static func shortHash(_ value: String) -> String {
        Hex.lowercase(Array(Digest.sha256(Array(value.utf8)).prefix(4)))
    }

    /// Name/value pairs with sensitive values replaced.
    public static func redact(_ parameters: FormParameters) -> [(String, String)] {
        parameters.pairs.map { ($0.name, isSensitive($0.name) ? redact($0.value, name: $0.name) : $0.value) }
    }

    /// A header value as the journal shows it.
    public static func redactHeader(name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return redact(value, name: "token") }
            return "\(parts[0]) \(redact(String(parts[1]), name: "token"))"
        case "cookie":
            return value.split(separator: ";").map { piece -> String in
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                guard let eq = trimmed.firstIndex(of: "=") else { return trimmed }
                return "\(trimmed[..<eq])=\(redact(String(trimmed[trimmed.index(after: eq)...]), name: "token"))"
            }.joined(separator: "; ")
        case "set-cookie":
            guard let eq = value.firstIndex(of: "=") else { return value }
            let rest = value[value.index(after: eq)...]
            let end = rest.firstIndex(of: ";") ?? rest.endIndex
            return "\(value[..<eq])=\(redact(String(rest[..<end]), name: "token"))\(rest[end...])"
        case "location":
            return redactURL(value)
        default:
            return value
        }
    }

    /// A URL with sensitive query and fragment parameters redacted (redirects carry codes and tokens).
    public static func redactURL(_ url: String) -> String {
        var rest = Substring(url)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = String(rest)
        if let query { result += "?" + redactParameterString(String(query)) }
        if let fragment { result += "#" + (fragment.contains("=") ? redactParameterString(String(fragment)) : String(fragment)) }
        return result
    }

    static func redactParameterString(_ text: String) -> String {
        redact(FormParameters(decoding: text)).map { FormCoding.encodeComponent($0.0) + "=" + FormCoding.encodeComponent($0.1) }.joined(separator: "&")
    }

    /// Writes a parsed JSON body with every sensitive member replaced, recursively, members in the order sent.
    static func writeRedacted(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value.kind {
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                if isSensitive(member.key), case .string(let text) = member.value.kind {
                    writer.string(redact(text, name: member.key))
                } else {
                    writeRedacted(member.value, to: &writer)
                }
            }
            writer.endObject()
        case .array(let elements):
            writer.beginArray()
            for element in elements { writeRedacted(element, to: &writer) }
            writer.endArray()
        default:
            value.write(to: &writer)
        }
    }

    /// A parsed JSON value with every sensitive member replaced, recursively.
    static func redactJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, member) in object {
                if isSensitive(key), let text = member as? String {
                    copy[key] = redact(text, name: key)
                } else {
                    copy[key] = redactJSON(member)
                }
            }
            return copy
        }
        if let array = value as? [Any] { return array.map(redactJSON) }
        return value
    }
}
