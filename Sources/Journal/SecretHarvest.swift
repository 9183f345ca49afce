import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// Finds the values an exchange carries under a secret's name — in the query, a form, JSON or
/// `text/plain` body, Basic credentials, cookies, a redirect's `Location`, a form_post page's hidden
/// fields — and hands them to `SecretMemory`, so they are redacted wherever they turn up later.
/// A response a platform handler gave is not scanned: its receipt names every token and code it created.
enum SecretHarvest {
    static func learn(from request: HTTPRequest, response: HTTPResponse, receipt: Receipt, into memory: SecretMemory) {
        learnSensitive(request.query, into: memory)
        learn(body: request.body, contentType: request.headers["Content-Type"], form: request.form, into: memory)
        if receipt.isComplete {
            for secret in receipt.secrets { memory.learn(secret, name: "token") }
        } else {
            learn(body: response.body, contentType: response.headers["Content-Type"], into: memory)
        }
        for field in request.headers.fields {
            if Fields.credentials.contains(field.name) {
                learnCredentials(field.value, into: memory)
            } else if Fields.cookie.contains(field.name) {
                for piece in field.value.split(separator: ";") {
                    if let eq = piece.firstIndex(of: "=") { memory.learn(String(piece[piece.index(after: eq)...]).trimmingCharacters(in: .whitespaces), name: "token") }
                }
            } else if Fields.referer.contains(field.name) {
                learnURL(field.value, into: memory)
            } else if Fields.identityHeader.contains(field.name) {
                memory.learn(field.value, name: "token")
            }
        }
        for field in response.headers.fields {
            if Fields.location.contains(field.name) {
                learnURL(field.value, into: memory)
            } else if Fields.setCookie.contains(field.name) {
                let value = field.value.split(separator: ";", maxSplits: 1).first ?? ""
                if let eq = value.firstIndex(of: "=") { memory.learn(String(value[value.index(after: eq)...]), name: "token") }
            }
        }
    }

    /// The fields that carry secrets, matched without lower-casing every field's name of every exchange.
    private enum Fields {
        static let credentials: FieldNameSet = ["authorization", "proxy-authorization"]
        static let cookie: FieldNameSet = ["cookie"]
        static let referer: FieldNameSet = ["referer"]
        /// App Service's managed identity secret, sent back to its identity endpoint.
        static let identityHeader: FieldNameSet = ["x-identity-header"]
        static let location: FieldNameSet = ["location"]
        static let setCookie: FieldNameSet = ["set-cookie"]
    }

    private static func learnCredentials(_ value: String, into memory: SecretMemory) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return }
        let credential = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard parts[0].lowercased() == "basic" else {
            memory.learn(credential, name: "token")
            return
        }
        // RFC 6749 §2.3.1: form-encoded client id and secret, base64 joined by ':'.
        guard let decoded = Data(base64Encoded: credential).map({ String(decoding: $0, as: UTF8.self) }),
              let colon = decoded.firstIndex(of: ":") else { return }
        let secret = String(decoded[decoded.index(after: colon)...])
        memory.learn(secret, name: "client_secret")
        memory.learn(FormCoding.percentDecode(secret.replacingOccurrences(of: "+", with: " ")) ?? secret, name: "client_secret")
    }

    private static func learnURL(_ url: String, into memory: SecretMemory) {
        for separator in ["?", "#"] {
            guard let start = url.range(of: separator) else { continue }
            var part = url[start.upperBound...]
            if separator == "?", let hash = part.firstIndex(of: "#") { part = part[..<hash] }
            learnSensitive(FormParameters(decoding: String(part)), into: memory)
        }
    }

    /// `form` is the body already decoded as a form, when it was sent as one.
    private static func learn(body: [UInt8], contentType: String?, form: FormParameters = FormParameters(), into memory: SecretMemory) {
        guard !body.isEmpty, body.count <= 256 * 1024 else { return }
        if isDecodedForm(body, form: form) {
            // Every token request. The rest below would learn the same: a form is decoded only from an
            // `application/x-www-form-urlencoded` body (never the page branch), `mayNameSecrets` answers no
            // only when no name in the body can be sensitive, and the `name=value` branch reads this form.
            learnSensitive(form, into: memory)
            return
        }
        guard Redaction.mayNameSecrets(body) else { return }
        let type = contentType?.fastLowercased ?? ""
        var text: String { String(decoding: body, as: UTF8.self) }
        if mayBeJSONContainer(body), let found = sensitiveJSONStrings(body) {
            for found in found { memory.learn(found.value, name: found.name) }
        } else if type.hasPrefix("text/html") {
            for field in hiddenFields(in: text) where Redaction.isSensitive(field.name) { memory.learn(field.value, name: field.name) }
        } else if body.contains(UInt8(ascii: "=")) {
            // name=value pairs, one per line or joined by '&'; an ASCII body is split on bytes.
            let lines = body.withUnsafeBufferPointer(isPlainASCII)
                ? body.split(whereSeparator: isLineBreak).map { String(decoding: $0, as: UTF8.self) }
                : text.split(whereSeparator: \.isNewline).map(String.init)
            for form in lines.map(FormParameters.init(decoding:)) { learnSensitive(form, into: memory) }
        }
    }

    /// Whether `form` is all the body says: the one ASCII line of `name=value` pairs the request decoded on
    /// arrival, which reading the body below (a JSON container first, then lines) would decode again.
    private static func isDecodedForm(_ body: [UInt8], form: FormParameters) -> Bool {
        !form.pairs.isEmpty && !mayBeJSONContainer(body) && body.contains(UInt8(ascii: "="))
            && body.withUnsafeBufferPointer(isPlainASCII) && !body.contains(where: isLineBreak)
    }

    private static func isLineBreak(_ byte: UInt8) -> Bool { (0x0A...0x0D).contains(byte) }

    private static func learnSensitive(_ form: FormParameters, into memory: SecretMemory) {
        for pair in form.pairs where Redaction.isSensitive(pair.name) { memory.learn(pair.value, name: pair.name) }
    }

    /// The strings under sensitive names of a JSON object or array; nil when the body is neither. Read
    /// leniently: what a client sent with a repeated member name, a trailing comma or in UTF-16 still
    /// names its secrets.
    private static func sensitiveJSONStrings(_ body: [UInt8]) -> [(name: String, value: String)]? {
        guard let parsed = LocatedJSON.parse(lenientBody: body) else { return nil }
        switch parsed.kind {
        case .object, .array: return Redaction.sensitiveStrings(in: parsed)
        case .null, .bool, .number, .string: return nil
        }
    }

    /// False when the body cannot hold a JSON object or array, so a form body skips the parser (a failed
    /// parse costs more than the rest of the harvest): its first character is printable ASCII other than
    /// `{` or `[`. UTF-16/32 bodies and byte order marks start with 0x00 or a byte ≥ 0x80, and still go to
    /// the parser, which recognises them.
    static func mayBeJSONContainer(_ body: [UInt8]) -> Bool {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return false }
        return !(0x21...0x7E).contains(first) || first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// `<input … name="code" value="…">` pairs of a page (form_post answers carry codes and tokens).
    static func hiddenFields(in html: String) -> [(name: String, value: String)] {
        html.components(separatedBy: "<input").dropFirst().compactMap { tag in
            let end = tag.firstIndex(of: ">") ?? tag.endIndex
            let attributes = tag[..<end]
            guard let name = attribute("name", in: attributes), let value = attribute("value", in: attributes) else { return nil }
            return (HTML.unescape(name), HTML.unescape(value))
        }
    }

    private static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[start.upperBound...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<close])
    }
}
