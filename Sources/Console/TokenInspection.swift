import EntraCrypto
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

/// A JWT taken apart as jwt.ms does, offline: header, claims in the order the token wrote them, and
/// whether one of FakeEntra's signing keys signed it.
struct TokenInspection {
    enum Signature: Equatable {
        case valid(keyID: String)
        /// Names a key FakeEntra does not publish (rolled over, or a token from elsewhere).
        case unknownKey(String?)
        case invalid(keyID: String)
        case unsupportedAlgorithm(String?)
    }

    struct Member {
        var name: String
        var value: JSONValue
    }

    var header: [Member]
    var claims: [Member]
    var signature: Signature

    /// nil when `token` is not a JWS whose header and payload are JSON objects.
    init?(_ token: String, keys: [SigningCredential]) {
        guard let decoded = JWS.decode(token),
              let header = try? LocatedJSON.parse(decoded.headerJSON, file: "header"), let headerMembers = header.members,
              let payload = try? LocatedJSON.parse(decoded.payloadJSON, file: "payload"), let payloadMembers = payload.members else { return nil }
        self.header = headerMembers.map { Member(name: $0.key, value: $0.value) }
        claims = payloadMembers.map { Member(name: $0.key, value: $0.value) }
        guard decoded.algorithm == "RS256" else {
            signature = .unsupportedAlgorithm(decoded.algorithm)
            return
        }
        guard let key = keys.first(where: { $0.keyID == decoded.keyID }) else {
            signature = .unknownKey(decoded.keyID)
            return
        }
        signature = JWS.verifyRS256(decoded, key: key.privateKey.publicKey) ? .valid(keyID: key.keyID) : .invalid(keyID: key.keyID)
    }

    func claim(_ name: String) -> String? { claims.first { $0.name == name }?.value.string }

    /// What kind of token this is, from its claims: the line above the table.
    var summary: String {
        let version = claim("ver").map { " v\($0)" } ?? ""
        if claim("idtyp") == "app" { return "App-only access token\(version)" }
        if claims.contains(where: { $0.name == "scp" || $0.name == "roles" }) { return "Access token\(version)" }
        if claims.contains(where: { $0.name == "nonce" || $0.name == "auth_time" || $0.name == "at_hash" || $0.name == "c_hash" }) { return "ID token\(version)" }
        return "JWT\(version)"
    }
}

/// The markup of an inspected token: `data-claim="<name>"` on every claim row, `data-signature` on the verdict.
enum TokenView {
    static func render(_ inspection: TokenInspection, label: String, now: Date) -> HTML {
        let verdict: HTML = switch inspection.signature {
        case .valid(let kid):
            "<p class=\"verdict ok\" data-signature=\"valid\">Signature verified with FakeEntra's signing key <code>\(kid)</code>.</p>"
        case .unknownKey(let kid):
            "<p class=\"verdict bad\" data-signature=\"unknown-key\">Not signed by a key FakeEntra publishes (kid <code>\(kid ?? "none")</code>): rolled over, or a token from elsewhere.</p>"
        case .invalid(let kid):
            "<p class=\"verdict bad\" data-signature=\"invalid\">Invalid signature: the header names key <code>\(kid)</code> but the signature does not match it.</p>"
        case .unsupportedAlgorithm(let alg):
            "<p class=\"verdict bad\" data-signature=\"unsupported\">Not verifiable: algorithm <code>\(alg ?? "none")</code> (Entra ID signs with RS256).</p>"
        }
        let headerRows = inspection.header.map { member -> HTML in
            row(member, explanation: ClaimGlossary.headerEntries[member.name], attribute: "data-header", now: now)
        }
        let claimRows = inspection.claims.map { member -> HTML in
            row(member, explanation: ClaimGlossary.explanation(member.name), attribute: "data-claim", now: now)
        }
        return """
        <section class="token" data-token="\(label)">
        <h3>\(label) <span class="pill">\(inspection.summary)</span></h3>
        \(verdict)
        <details class="jwt-header"><summary>Header: \(inspection.header.map { member -> String in "\(member.name) \(TokenView.display(member.value))" }.joined(separator: " · "))</summary>
        <table class="claims"><tbody>\(headerRows)</tbody></table></details>
        <table class="claims"><caption>Claims</caption><thead><tr><th>claim</th><th>value</th><th>meaning</th></tr></thead><tbody>\(claimRows)</tbody></table>
        </section>
        """
    }

    static func row(_ member: TokenInspection.Member, explanation: String?, attribute: String, now: Date) -> HTML {
        var value: HTML = "<code>\(display(member.value))</code>"
        if ClaimGlossary.timeClaims.contains(member.name), let seconds = member.value.number?.double {
            value = value + " <small>\(ConsoleFormat.dateTime(Date(timeIntervalSince1970: seconds))) · \(ConsoleFormat.relative(Date(timeIntervalSince1970: seconds), now: now))</small>"
        }
        return "<tr \(HTML(raw: attribute))=\"\(member.name)\"><th scope=\"row\"><code>\(member.name)</code></th><td>\(value)</td><td class=\"meaning\">\(explanation ?? "")</td></tr>"
    }

    /// A claim's value as people read it: strings bare, everything else as compact JSON.
    static func display(_ value: JSONValue) -> String {
        if let string = value.string { return string }
        return value.compactText
    }
}
