import FoundationGaps
import IdentityPlatform

/// Replaces personal data in captured text with FakeEntra's demo data, consistently: the same
/// e-mail, GUID or address always becomes the same replacement, so a replayed scenario reads like
/// the capture without naming anyone.
struct Anonymizer {
    private var emails: [String: String] = [:]
    private var guids: [String: String] = [:]
    private var addresses: [String: String] = [:]
    private var domains: [String: String] = [:]
    /// GUIDs that identify software, not people or organisations (app ids of the capture, Graph, MSA tenant).
    private var keep: Set<String>

    private static let demoUsers = ["adele.vance@contoso.onmicrosoft.com", "alex.wilber@contoso.onmicrosoft.com"]
    private static let demoUserIDs = ["6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51", "b8c5e1d2-7f3a-4b6c-8d9e-0a1b2c3d4e5f"]

    init(keeping preserved: Set<String>) {
        keep = Set(preserved.map { $0.lowercased() }).union([Resource.graphAppID, Tenant.consumersTenantID, "00000000-0000-0000-0000-000000000000"])
    }

    /// Tells the anonymizer which GUIDs are tenants and users, so they map to Contoso's tenant and demo users.
    mutating func learn(tenantID: String) {
        let key = tenantID.lowercased()
        guard !keep.contains(key), guids[key] == nil else { return }
        guids[key] = Directory.contosoTenantID
    }

    mutating func learn(userID: String) {
        let key = userID.lowercased()
        guard !keep.contains(key), guids[key] == nil else { return }
        let used = Set(guids.values)
        guids[key] = Self.demoUserIDs.first { !used.contains($0) } ?? Self.stable("user", key)
    }

    mutating func email(_ address: String) -> String {
        let key = address.lowercased()
        if let known = emails[key] { return known }
        let used = Set(emails.values)
        let replacement = Self.demoUsers.first { !used.contains($0) } ?? "user\(emails.count + 1)@contoso.onmicrosoft.com"
        emails[key] = replacement
        return replacement
    }

    /// Every personal datum in `text` replaced.
    mutating func scrub(_ text: String) -> String {
        var result = text
        result = replace(in: result, spans: PersonalDataSpans.emails) { $0.email($1) }
        result = replace(in: result, pattern: "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}") { me, guid in
            let key = guid.lowercased()
            if me.keep.contains(key) { return guid }
            if let known = me.guids[key] { return known }
            let replacement = Self.stable("guid", key)
            me.guids[key] = replacement
            return replacement
        }
        result = replace(in: result, pattern: "\\b(?:[0-9]{1,3}\\.){3}[0-9]{1,3}\\b") { me, address in
            if address.hasPrefix("127.") { return address }
            if let known = me.addresses[address] { return known }
            let replacement = "192.0.2.\(me.addresses.count % 250 + 1)"
            me.addresses[address] = replacement
            return replacement
        }
        result = replace(in: result, spans: PersonalDataSpans.tenantDomains) { me, domain in
            let key = domain.lowercased()
            if key == "contoso.onmicrosoft.com" || key == "fabrikamb2c.onmicrosoft.com" { return domain }
            if let known = me.domains[key] { return known }
            let replacement = key.contains("b2c") ? "fabrikamb2c.onmicrosoft.com" : "contoso.onmicrosoft.com"
            me.domains[key] = replacement
            return replacement
        }
        return result
    }

    /// Replaces the spans a scanner finds (byte ranges of ASCII text, so the bytes between stay valid UTF-8).
    private mutating func replace(in text: String, spans find: ([UInt8]) -> [Range<Int>], with transform: (inout Anonymizer, String) -> String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var last = 0
        for span in find(bytes) {
            output += bytes[last..<span.lowerBound]
            output += transform(&self, String(decoding: bytes[span], as: UTF8.self)).utf8
            last = span.upperBound
        }
        output += bytes[last...]
        return String(decoding: output, as: UTF8.self)
    }

    /// Patterns of bounded length only (a GUID, a dotted quad): a regular expression scans those in linear time.
    private mutating func replace(in text: String, pattern: String, with transform: (inout Anonymizer, String) -> String) -> String {
        guard let regex = try? Regex(pattern) else { return text }
        var output = ""
        var last = text.startIndex
        for match in text.matches(of: regex) {
            let range = match.range
            output += text[last..<range.lowerBound]
            output += transform(&self, String(text[range]))
            last = range.upperBound
        }
        return output + text[last...]
    }

    static func stable(_ kind: String, _ key: String) -> String {
        DirectoryEntryDecoder.stableGUID(for: "har-\(kind):\(key)")
    }
}
