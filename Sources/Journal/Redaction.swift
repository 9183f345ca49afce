import ExchangeKernel
import EntraCrypto
package import EntraHTTP
import FoundationGaps
import LocatedJSON

/// Removes secrets and tokens from what the journal keeps, leaving a trace a reader can correlate:
/// the length, and for tokens and codes a short hash (equal values give equal hashes).
///
/// By name (a parameter, JSON member or cookie called `client_secret`, `new_password`, `*_token`…,
/// whatever its value's type) and by what a value is (`SecretShape`: JWTs, issued refresh tokens and
/// device codes; `SecretMemory`: any value the journal saw under a secret's name, or configured as a
/// password or client secret), wherever it turns up.
package enum Redaction {
    /// Names (lower case, without `_`, `-`, `.`) whose values are credentials or tokens.
    package static let sensitiveNames: Set<String> = [
        "clientsecret", "password", "code", "codeverifier", "refreshtoken", "assertion", "clientassertion",
        "accesstoken", "idtoken", "devicecode", "usercode", "idtokenhint", "token", "otc", "newpassword", "currentpassword",
        // The sign-in pages' password fields (Microsoft's names).
        "passwd", "confirmnewpassword",
        // B2C's pages: sign-up and password reset confirm the new password in this field.
        "reenterpassword",
        // The control API's app shape.
        "secrets",
        // The native authentication API's one-time codes (`oob`, and a second factor's `mfa_oob`).
        "oob", "mfaoob",
    ]

    static func normalized(_ name: String) -> String {
        // Names are ASCII almost always: lower-cased and filtered byte by byte, without Unicode tables.
        if name.isPlainASCII {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(name.utf8.count)
            for byte in name.utf8 where !isIgnoredInNames(byte) {
                bytes.append(asciiLower(byte))
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(name.lowercased().unicodeScalars.filter { !($0.isASCII && isIgnoredInNames(UInt8($0.value))) })
    }

    private static func isIgnoredInNames(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ")
    }

    /// Exact names, and any name about a password or secret, or ending in `token`/`assertion`.
    package static func isSensitive(_ name: String) -> Bool {
        if let known = commonNames[name] { return known.isSensitive }
        return isSensitiveNormalized(normalized(name))
    }

    private static func isSensitiveNormalized(_ n: String) -> Bool {
        sensitiveNames.contains(n) || isLengthOnlyNormalized(n) || n.hasSuffix("token") || n.hasSuffix("tokens") || n.hasSuffix("assertion")
    }

    /// The parameter names OAuth requests and answers carry, classified once: every request's names are
    /// asked about, a token request's four or five of them, and normalising a name builds a string.
    static let commonNames: [String: (isSensitive: Bool, isLengthOnly: Bool)] = Dictionary(uniqueKeysWithValues: [
        "grant_type", "client_id", "client_secret", "scope", "redirect_uri", "code", "code_verifier", "refresh_token",
        "client_assertion", "client_assertion_type", "client_info", "claims", "username", "password", "device_code",
        "response_type", "response_mode", "state", "nonce", "prompt", "login_hint", "domain_hint", "code_challenge",
        "code_challenge_method", "requested_token_use", "assertion", "access_token", "id_token", "token_type",
        "expires_in", "ext_expires_in", "refresh_in", "error", "error_description", "error_codes", "timestamp",
        "trace_id", "correlation_id", "x-client-SKU", "x-client-Ver", "x-client-OS", "x-client-CPU", "x-app-name", "x-app-ver",
    ].map { name in
        let n = normalized(name)
        return (name, (isSensitiveNormalized(n), isLengthOnlyNormalized(n)))
    })

    /// False only when no name in `bytes` (JSON members, form fields, a page's inputs) can be sensitive:
    /// the text is printable ASCII without escapes (`\`, `%`, `&#`), and no stem of a sensitive name appears once
    /// the characters names ignore (and `+`, a form's space) are dropped and letters lower-cased. Every
    /// answer's body is harvested, and most (health, discovery, keys, Graph) name no secret.
    static func mayNameSecrets(_ bytes: [UInt8]) -> Bool {
        // Folded into scratch space (on the stack for the short bodies most requests have).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { folded in
            var count = 0
            var previous: UInt8 = 0
            for byte in bytes {
                // Not plain ASCII text (UTF-16 or UTF-32 JSON without a byte order mark has zero bytes between
                // the letters), or an escape that can spell a name's letters: the body is parsed.
                let isControl = byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
                if byte >= 0x80 || isControl || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%") || (previous == UInt8(ascii: "&") && byte == UInt8(ascii: "#")) {
                    return true
                }
                previous = byte
                if isIgnoredInNames(byte) || byte == UInt8(ascii: "+") { continue }
                folded[count] = asciiLower(byte)
                count += 1
            }
            let text = UnsafeBufferPointer(rebasing: folded[..<count])
            return sensitiveStems.contains { contains(text, bytes: $0) }
        }
    }

    /// A part of every sensitive name (`sensitiveNames`, `isLengthOnly`, the `token`/`assertion` suffixes).
    private static let sensitiveStems: [[UInt8]] = ["code", "token", "assertion", "otc", "oob", "secret", "password", "passwd", "pwd"].map { Array($0.utf8) }

    /// Low-entropy secrets get their length only: a hash of a password could be looked up in a dictionary.
    static func isLengthOnly(_ name: String) -> Bool {
        if let known = commonNames[name] { return known.isLengthOnly }
        return isLengthOnlyNormalized(normalized(name))
    }

    private static let lengthOnlyParts: [[UInt8]] = ["password", "passwd", "secret"].map { Array($0.utf8) }

    private static func isLengthOnlyNormalized(_ n: String) -> Bool {
        n == "pwd" || lengthOnlyParts.contains { contains(n, bytes: $0) }
    }

    /// Whether `text` contains `part` byte for byte: the journal's checks on names and content types
    /// run several times per request, and Foundation's `contains` is a CFString search with a locale.
    static func contains(_ text: String, bytes part: [UInt8]) -> Bool {
        text.withUTF8Bytes { contains($0, bytes: part) }
    }

    static func contains(_ bytes: some RandomAccessCollection<UInt8>, bytes part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        var start = bytes.startIndex
        let last = bytes.index(bytes.endIndex, offsetBy: -part.count)
        while true {
            if bytes[start..<bytes.index(start, offsetBy: part.count)].elementsEqual(part) { return true }
            if start == last { return false }
            bytes.formIndex(after: &start)
        }
    }

    package static func redact(_ value: String, name: String) -> String {
        if isLengthOnly(name) { return "[redacted \(value.count) chars]" }
        return "[redacted \(value.count) chars \(hashLabel)\(shortHash(value))]"
    }

    /// What precedes the short hash in a marker `redact(_:name:)` writes.
    private static let hashLabel = "sha256:"

    /// The short hashes of the markers `redact(_:name:)` writes (`[redacted N chars sha256:1a2b3c4d]`) in
    /// `text`, in order: what a reader matches a redacted value by, with a receipt's handle or a token it
    /// holds (equal values give equal hashes).
    package static func markerHashes(in text: String) -> [String] {
        var hashes: [String] = []
        var rest = Substring(text)
        while let marker = rest.range(of: hashLabel) {
            let hex = rest[marker.upperBound...].prefix { $0.isASCII && $0.isHexDigit }
            if hex.count >= 8 { hashes.append(String(hex)) }
            rest = rest[marker.upperBound...]
        }
        return hashes
    }

    static func shortHash(_ value: String) -> String {
        Hex.lowercase(Digest.sha256(value.utf8).prefix(4))
    }

    /// Name/value pairs with sensitive values replaced.
    package static func redact(_ parameters: FormParameters) -> [(String, String)] {
        parameters.pairs.map { ($0.name, isSensitive($0.name) ? redact($0.value, name: $0.name) : $0.value) }
    }

    /// A header value as the journal shows it.
    package static func redactHeader(name: String, value: String) -> String {
        switch name.lowercased() {
        case "x-identity-header":
            return redact(value, name: "token")
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
        case "location", "referer", "content-location":
            return redactURL(value)
        default:
            return value
        }
    }

    /// A URL with sensitive query and fragment parameters redacted (redirects carry codes and tokens).
    package static func redactURL(_ url: String) -> String {
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

    /// Graph's, Resource Manager's and the control API's error objects (`{"error": {"code": "…", …}}`,
    /// `details[].code` inside) name the error in `code`: a word for people, not an authorization code.
    /// OAuth's error answers put theirs in `error` and `error_codes`, never in `code`.
    static func isSensitive(_ name: String, inError: Bool) -> Bool {
        if inError, normalized(name) == "code" { return false }
        return isSensitive(name)
    }

    private static func opensError(_ member: JSONMember) -> Bool {
        if case .object = member.value.kind { return normalized(member.key) == "error" }
        return false
    }

    /// Writes a parsed JSON body with every sensitive member replaced, recursively, members in their
    /// order. A member under a sensitive name is redacted whatever it holds: a number, an object or a list
    /// of secrets too.
    static func writeRedacted(_ value: JSONValue, inError: Bool = false, to writer: inout JSONWriter) {
        switch value.kind {
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                if isSensitive(member.key, inError: inError) {
                    writeAllRedacted(member.value, name: member.key, to: &writer)
                } else {
                    writeRedacted(member.value, inError: inError || opensError(member), to: &writer)
                }
            }
            writer.endObject()
        case .array(let elements):
            writer.beginArray()
            for element in elements { writeRedacted(element, inError: inError, to: &writer) }
            writer.endArray()
        default:
            value.write(to: &writer)
        }
    }

    private static func writeAllRedacted(_ value: JSONValue, name: String, to writer: inout JSONWriter) {
        switch value.kind {
        case .null:
            value.write(to: &writer)
        case .string(let text):
            writer.string(redact(text, name: name))
        case .bool:
            writer.string("[redacted boolean]")
        case .number:
            writer.string("[redacted value]")
        case .array(let elements):
            writer.beginArray()
            for element in elements { writeAllRedacted(element, name: name, to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                writeAllRedacted(member.value, name: name, to: &writer)
            }
            writer.endObject()
        }
    }

    /// Every string under a sensitive name in a parsed JSON value (to remember them).
    static func sensitiveStrings(in value: JSONValue, name: String? = nil, inError: Bool = false) -> [(name: String, value: String)] {
        switch value.kind {
        case .object(let members):
            members.flatMap { sensitiveStrings(in: $0.value, name: isSensitive($0.key, inError: inError) ? $0.key : name, inError: inError || opensError($0)) }
        case .array(let elements): elements.flatMap { sensitiveStrings(in: $0, name: name, inError: inError) }
        case .string(let text): name.map { [($0, text)] } ?? []
        default: []
        }
    }

    // MARK: By value

    /// Characters that end a candidate value in free text (JSON, forms, headers, prose).
    private static func isDelimiter(_ b: UInt8) -> Bool {
        switch b {
        case 0...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: ","),
             UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"), UInt8(ascii: "?"),
             UInt8(ascii: "#"), UInt8(ascii: "|"), UInt8(ascii: "`"):
            true
        default: false
        }
    }

    /// `text` with every value that is a secret by shape or remembered by `memory` replaced, whatever
    /// surrounds it. Percent-encoded values are recognised too.
    package static func scrub(_ text: String, memory: SecretMemory?) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var copied = 0
        var start = 0
        func replacement(_ candidate: String) -> String? {
            if SecretShape.isSecret(candidate) { return redact(candidate, name: "token") }
            let decoded = candidate.utf8.contains(UInt8(ascii: "%")) ? candidate.removingPercentEncoding : nil
            // The memory does not keep what is a secret by shape, so a JWT spelled with `%2E` is caught here.
            if let decoded, SecretShape.isSecret(decoded) { return redact(decoded, name: "token") }
            guard let memory else { return nil }
            if let lengthOnly = memory.lookup(candidate) { return redact(candidate, name: lengthOnly ? "password" : "token") }
            if let decoded, let lengthOnly = memory.lookup(decoded) { return redact(decoded, name: lengthOnly ? "password" : "token") }
            return nil
        }
        for index in 0...bytes.count {
            guard index == bytes.count || isDelimiter(bytes[index]) else { continue }
            if index - start >= SecretMemory.minimumLength, let redacted = replacement(String(decoding: bytes[start..<index], as: UTF8.self)) {
                output += bytes[copied..<start]
                output += Array(redacted.utf8)
                copied = index
            }
            start = index + 1
        }
        guard copied > 0 else { return text }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }
}
