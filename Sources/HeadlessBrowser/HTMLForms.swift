package import EntraHTTP

/// The forms of a server-rendered page, read the way a browser without JavaScript reads them: each
/// `<form>` with its action, method, inputs and submit buttons. Tolerant by design (unknown tags and
/// text are skipped); what it keeps is attributes, never page text, so the walker never depends on wording.
package struct HTMLForm: Sendable, Equatable {
    package struct Input: Sendable, Equatable {
        package var attributes: [String: String]
        package var type: String { attributes["type"]?.lowercased() ?? "text" }
        package var name: String? { attributes["name"] }
        package var value: String { attributes["value"] ?? (type == "checkbox" || type == "radio" ? "on" : "") }
        package var isChecked: Bool { attributes["checked"] != nil }
        /// The autocomplete token says what a field is for (`username`, `current-password`, `one-time-code`).
        package var purpose: String { attributes["autocomplete"]?.lowercased() ?? "" }
    }

    package struct Button: Sendable, Equatable {
        package var attributes: [String: String]
        package var name: String? { attributes["name"] }
        package var value: String { attributes["value"] ?? "" }
        package var id: String? { attributes["id"] }
        package var isSubmit: Bool { (attributes["type"]?.lowercased() ?? "submit") == "submit" }
        package var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
    }

    package var attributes: [String: String]
    package var inputs: [Input] = []
    package var buttons: [Button] = []

    package var id: String? { attributes["id"] }
    package var action: String { attributes["action"] ?? "" }
    package var method: String { attributes["method"]?.uppercased() == "POST" ? "POST" : "GET" }

    /// Every form in `html`, in document order.
    package static func parse(_ html: String) -> [HTMLForm] {
        var forms: [HTMLForm] = []
        var open = false
        for tag in HTMLTags(html) {
            switch (tag.name, tag.isClosing) {
            case ("form", false):
                forms.append(HTMLForm(attributes: tag.attributes))
                open = true
            case ("form", true):
                open = false
            case ("input", false) where open:
                if tag.attributes["type"]?.lowercased() == "submit" {
                    forms[forms.count - 1].buttons.append(Button(attributes: tag.attributes))
                } else {
                    forms[forms.count - 1].inputs.append(Input(attributes: tag.attributes))
                }
            case ("button", false) where open:
                forms[forms.count - 1].buttons.append(Button(attributes: tag.attributes))
            default:
                continue
            }
        }
        return forms
    }

    /// The name/value pairs a browser submits with `button` (or with none): hidden and typed inputs,
    /// checked boxes, then the button's own pair. `fill` supplies a value for an input, or nil to keep it.
    package func submission(with button: Button?, fill: (Input) -> String?) -> FormParameters {
        var parameters = FormParameters()
        for input in inputs {
            guard let name = input.name, !name.isEmpty else { continue }
            if input.type == "checkbox" || input.type == "radio" {
                if fill(input) != nil || input.isChecked { parameters.append(name, input.value) }
            } else {
                parameters.append(name, fill(input) ?? input.value)
            }
        }
        if let button, let name = button.name, !name.isEmpty { parameters.append(name, button.value) }
        return parameters
    }
}

/// Start and end tags of an HTML document with their attributes (names lowercased, character
/// references decoded). Comments, scripts and styles are skipped whole.
struct HTMLTags: Sequence, IteratorProtocol {
    struct Tag {
        var name: String
        var isClosing: Bool
        var attributes: [String: String]
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ html: String) { scalars = Array(html.unicodeScalars) }

    mutating func next() -> Tag? {
        while index < scalars.count {
            guard scalars[index] == "<" else { index += 1; continue }
            if startsWith("<!--") {
                skip(past: "-->")
                continue
            }
            index += 1
            let isClosing = index < scalars.count && scalars[index] == "/"
            if isClosing { index += 1 }
            let name = readName().lowercased()
            guard !name.isEmpty else { continue }
            let attributes = readAttributes()
            if !isClosing, name == "script" || name == "style" { skip(past: "</\(name)") }
            return Tag(name: name, isClosing: isClosing, attributes: attributes)
        }
        return nil
    }

    private func startsWith(_ text: String) -> Bool {
        let needle = Array(text.unicodeScalars)
        guard index + needle.count <= scalars.count else { return false }
        for (offset, scalar) in needle.enumerated() where scalars[index + offset].properties.lowercaseMapping != String(scalar) {
            return false
        }
        return true
    }

    private mutating func skip(past terminator: String) {
        while index < scalars.count, !startsWith(terminator) { index += 1 }
        index = Swift.min(scalars.count, index + terminator.unicodeScalars.count)
    }

    private mutating func readName() -> String {
        var name = String.UnicodeScalarView()
        while index < scalars.count, !isSpace(scalars[index]), scalars[index] != ">", scalars[index] != "/", scalars[index] != "=" {
            name.append(scalars[index])
            index += 1
        }
        return String(name)
    }

    private mutating func readAttributes() -> [String: String] {
        var attributes: [String: String] = [:]
        while index < scalars.count {
            while index < scalars.count, isSpace(scalars[index]) || scalars[index] == "/" { index += 1 }
            guard index < scalars.count, scalars[index] != ">" else { index += 1; break }
            let name = readName().lowercased()
            if name.isEmpty { index += 1; continue }
            while index < scalars.count, isSpace(scalars[index]) { index += 1 }
            var value = ""
            if index < scalars.count, scalars[index] == "=" {
                index += 1
                while index < scalars.count, isSpace(scalars[index]) { index += 1 }
                value = readValue()
            }
            if attributes[name] == nil { attributes[name] = HTMLCharacterReferences.decode(value) }
        }
        return attributes
    }

    private mutating func readValue() -> String {
        var value = String.UnicodeScalarView()
        guard index < scalars.count else { return "" }
        let quote = scalars[index]
        if quote == "\"" || quote == "'" {
            index += 1
            while index < scalars.count, scalars[index] != quote { value.append(scalars[index]); index += 1 }
            index += 1
        } else {
            while index < scalars.count, !isSpace(scalars[index]), scalars[index] != ">" { value.append(scalars[index]); index += 1 }
        }
        return String(value)
    }

    private func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == "\u{0C}" }
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references; anything else stays as written.
enum HTMLCharacterReferences {
    private static let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(10).firstIndex(of: ";"), let decoded = reference(String(after[..<semi])) {
                out += decoded
                rest = after[after.index(after: semi)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }

    private static func reference(_ body: String) -> String? {
        if let named = named[body] { return named }
        guard body.hasPrefix("#") else { return nil }
        let digits = body.dropFirst()
        let code = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return code.flatMap(Unicode.Scalar.init).map { String($0) }
    }
}
