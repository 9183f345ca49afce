/// The loopback names every local certificate covers, whatever `--hostname` adds: the server answers
/// as them too (the served-host check), so both read this one list.
package enum LocalServerNames {
    package static let alwaysIncluded = ["localhost", "127.0.0.1", "::1"]
}

/// The names a local TLS certificate covers, validated and normalised, and the X.509 name
/// constraints that restrict the local CA to exactly those names.
struct ServerNames: Equatable {
    /// DNS names as they go into the SAN (lowercase, wildcards kept), in first-seen order.
    private(set) var dns: [String] = []
    /// IP addresses (4 or 16 bytes), in first-seen order.
    private(set) var ip: [[UInt8]] = []

    static let alwaysIncluded = LocalServerNames.alwaysIncluded

    init(_ hostnames: [String]) throws {
        for raw in hostnames + Self.alwaysIncluded {
            var name = raw.trimmingWhitespace().lowercased()
            if name.hasSuffix("."), !name.hasSuffix("..") { name.removeLast() }
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if let address = IPAddress.bytes(name) {
                if !ip.contains(address) { ip.append(address) }
            } else {
                try Self.validate(dnsName: name, original: raw)
                if !dns.contains(name) { dns.append(name) }
            }
        }
    }

    /// SAN entries as text: DNS names then IPs in canonical form (what X509Certificate reports).
    var subjectAlternativeNames: [String] { dns + ip.compactMap(IPAddress.text) }

    /// OpenSSL `subjectAltName` configuration value. Safe to splice: names are validated to contain
    /// only letters, digits, '-', '.' and a leading '*', and IPs are printed by us.
    var subjectAltNameExtension: String {
        (dns.map { "DNS:\($0)" } + ip.compactMap(IPAddress.text).map { "IP:\($0)" }).joined(separator: ",")
    }

    /// DNS constraint bases: a wildcard `*.b2clogin.com` becomes `b2clogin.com` (which permits the
    /// domain and its subdomains, RFC 5280 §4.2.1.10); exact names stay exact.
    var constraintDNS: [String] {
        var bases: [String] = []
        for name in dns {
            let base = name.hasPrefix("*.") ? String(name.dropFirst(2)) : name
            if !bases.contains(base) { bases.append(base) }
        }
        return bases
    }

    /// OpenSSL `nameConstraints` configuration value: critical, permitted subtrees only.
    var nameConstraintsExtension: String {
        let dnsParts = constraintDNS.map { "permitted;DNS:\($0)" }
        let ipParts = ip.compactMap { address -> String? in
            guard let text = IPAddress.text(address), let mask = IPAddress.text([UInt8](repeating: 0xFF, count: address.count)) else { return nil }
            return "permitted;IP:\(text)/\(mask)"
        }
        return (["critical"] + dnsParts + ipParts).joined(separator: ",")
    }

    /// Whether a CA whose permitted subtrees are `subtrees` may vouch for every one of these names,
    /// using the matching rules OpenSSL applies (x509 `nc_dns`, `nc_ip`).
    func areCovered(by subtrees: PermittedSubtrees) -> Bool {
        dns.allSatisfy { name in subtrees.dns.contains { Self.dnsName(name, isWithin: $0) } }
            && ip.allSatisfy { address in subtrees.ip.contains { $0.contains(address) } }
    }

    /// RFC 5280 DNS constraint matching: the base itself or any name formed by adding labels on the
    /// left; a base starting with "." only matches such longer names.
    static func dnsName(_ name: String, isWithin base: String) -> Bool {
        let name = name.lowercased(), base = base.lowercased()
        if base.isEmpty { return true }
        if base.hasPrefix(".") { return name.hasSuffix(base) }
        return name == base || name.hasSuffix("." + base)
    }

    private static func validate(dnsName name: String, original: String) throws {
        func invalid(_ why: String) -> CryptoError { CryptoError(.invalidName, "'\(original)' is not a usable host name: \(why)") }
        guard !name.isEmpty else { throw invalid("it is empty") }
        guard name.utf8.count <= 253 else { throw invalid("longer than 253 characters") }
        var labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.first == "*" {
            guard labels.count >= 3 else { throw invalid("a wildcard needs at least two labels after '*.'") }
            labels.removeFirst()
        }
        for label in labels {
            guard !label.isEmpty else { throw invalid("it has an empty label") }
            guard label.utf8.count <= 63 else { throw invalid("a label is longer than 63 characters") }
            guard label.utf8.allSatisfy({ $0.isLetterDigitOrHyphen }) else {
                throw invalid("only letters, digits, '-' and '.' are allowed (and '*.' at the start)")
            }
            guard label.first != "-", label.last != "-" else { throw invalid("a label starts or ends with '-'") }
        }
    }
}

/// What a CA certificate's name-constraints extension permits.
struct PermittedSubtrees: Equatable {
    struct IPRange: Equatable {
        let address: [UInt8]
        let mask: [UInt8]
        func contains(_ candidate: [UInt8]) -> Bool {
            candidate.count == address.count && zip(zip(candidate, address), mask).allSatisfy { pair, mask in
                pair.0 & mask == pair.1 & mask
            }
        }
    }

    var critical: Bool
    var dns: [String] = []
    var ip: [IPRange] = []
    /// Subtrees of other kinds (email, URI, directory name): never written by us.
    var other = 0
}

private extension UInt8 {
    var isLetterDigitOrHyphen: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || self == UInt8(ascii: "-")
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
