import B2C
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import Journal
import IdentityPlatform
import Scenarios

extension ConsolePage {
    /// `/`: what to paste into an app, the CA to trust, and the server at a glance.
    func overview() -> HTTPResponse {
        let world = console.engine.world(binding: "default")
        let directory = world?.service.currentDirectory ?? Directory()
        let host = PublicOrigin(request: request, context: context).authority
        let glance: HTML = """
        <div class="cards" id="glance">
        <a href="\(Tab.directory.path)#tenants"><strong>\(directory.tenants.count)</strong>tenants</a>
        <a href="\(Tab.directory.path)#users"><strong>\(directory.users.count)</strong>users</a>
        <a href="\(Tab.directory.path)#apps"><strong>\(directory.applications.count)</strong>apps</a>
        <a href="\(Tab.journal.path)"><strong id="journalCount">\(console.journal.count)</strong>journal entries</a>
        <a href="\(Tab.scenarios.path)"><strong id="bindingCount">\(console.engine.bindings.count)</strong>bound scenarios</a>
        <a href="\(Tab.scenarios.path)#clock" id="clockCard"><strong>\(String(ConsoleFormat.clockTime(console.now).prefix(8)))</strong>virtual clock <small>\(String(ConsoleFormat.dateTime(console.now).prefix(10))) UTC</small></a>
        </div>
        """
        let content = glance + authorities(directory: directory, host: host) + certificateSection()
        return frame(.overview, heading: "Console",
                     lede: "A local Microsoft identity platform: point an app at an authority below, sign in, and watch every request here.", content)
    }

    func authorities(directory: Directory, host: String) -> HTML {
        let multiTenant: [(String, String)] = [
            ("common", "work, school and personal accounts"), ("organizations", "work and school accounts"), ("consumers", "personal Microsoft accounts"),
        ]
        var v2Rows = multiTenant.map { segment, audience -> HTML in
            authorityRow(url: "\(origin)/\(segment)", what: "Any tenant: \(audience)", metadata: "\(origin)/\(segment)/v2.0/.well-known/openid-configuration",
                         tryIt: "/\(segment)")
        }
        var v1Rows: [HTML] = []
        for tenant in directory.tenants where tenant.kind == .organization {
            v2Rows.append(authorityRow(url: "\(origin)/\(tenant.primaryDomain)", what: "\(tenant.displayName) (\(tenant.id))",
                                       metadata: "\(origin)/\(tenant.id)/v2.0/.well-known/openid-configuration", tryIt: "/\(tenant.primaryDomain)"))
            v1Rows.append(authorityRow(url: "\(origin)/\(tenant.primaryDomain)", what: "\(tenant.displayName): /oauth2/authorize and /oauth2/token with resource=",
                                       metadata: "\(origin)/\(tenant.id)/.well-known/openid-configuration"))
        }
        // External ID's tenants answer here too; their apps name them as https://{subdomain}.ciamlogin.com/.
        let externalRows = directory.tenants.filter { $0.kind == .external }.map { tenant -> HTML in
            let subdomain = tenant.primaryDomain.prefix { $0 != "." }
            return authorityRow(url: "\(origin)/\(tenant.primaryDomain)",
                                what: "\(tenant.displayName) (\(tenant.id)); as its apps name it: https://\(subdomain).ciamlogin.com/",
                                metadata: "\(origin)/\(tenant.id)/v2.0/.well-known/openid-configuration", tryIt: "/\(tenant.primaryDomain)")
        }
        let externalTable: HTML = externalRows.isEmpty ? .empty : """
        <h3>Microsoft Entra External ID: customers sign in with their email</h3>
        <p>Its apps use the tenant's <code>ciamlogin.com</code> name, whose tokens carry External ID's issuer (<code>https://{tenant id}.ciamlogin.com/{tenant id}/v2.0</code>): serve that name with <code>--hostname '*.ciamlogin.com'</code> on port 443 and map it to this machine (docs/external-id.md). Here, at this server's own address, the same tenant answers with its own issuer.</p>
        <table class="grid" id="authorities-external"><thead><tr><th>authority</th><th>tenant</th><th>metadata</th><th>sign in</th></tr></thead><tbody>\(externalRows)</tbody></table>
        """
        var b2cRows: [HTML] = []
        if let b2c = console.b2c {
            for policy in b2c.policies {
                let authority = "\(origin)/tfp/\(b2c.tenant.domain)/\(policy.name)"
                // The flows a person starts from an app's sign-in button can be tried from here.
                let tryable = ["susi", "signin"].contains(policy.kind.rawValue)
                b2cRows.append(authorityRow(url: authority, what: "\(policy.name): \(Self.userFlowPurpose[policy.kind.rawValue] ?? policy.kind.rawValue)",
                                            metadata: "\(origin)/\(b2c.tenant.domain)/\(policy.name)/v2.0/.well-known/openid-configuration",
                                            tryIt: tryable ? "/tfp/\(b2c.tenant.domain)/\(policy.name)" : "", ))
            }
        }
        let b2cTable: HTML = b2cRows.isEmpty ? .empty : """
        <h3>Azure AD B2C: one authority per user flow (MSAL: <code>b2cPolicies</code>, <code>knownAuthorities: ["\(host)"]</code>)</h3>
        <table class="grid" id="authorities-b2c"><thead><tr><th>authority</th><th>user flow</th><th>metadata</th><th>sign in</th></tr></thead><tbody>\(b2cRows)</tbody></table>
        """
        return """
        <section id="authorities">
        <h2>Point your app here</h2>
        <p>Use an authority as MSAL's <code>authority</code> and add \(Self.copyable(host, id: "knownAuthority")) to <code>knownAuthorities</code> (MSAL for iOS/macOS: <code>knownAuthorities</code> with <code>validateAuthority = false</code>). Graph is at \(Self.copyable("\(origin)/v1.0", id: "graphURL")).</p>
        <h3>Entra ID v2.0 (MSAL, OpenID Connect)</h3>
        <p>"Try it" signs in with an authority as a public client with PKCE (the console's own app) and shows the tokens and a Graph call made with them (B2C: the tokens for the tenant's API).</p>
        <table class="grid" id="authorities-v2"><thead><tr><th>authority</th><th>accounts</th><th>metadata</th><th>sign in</th></tr></thead><tbody>\(v2Rows)</tbody></table>
        <h3>Entra ID v1.0 (ADAL, <code>resource=</code>)</h3>
        <table class="grid" id="authorities-v1"><thead><tr><th>authority</th><th>tenant</th><th>metadata</th></tr></thead><tbody>\(v1Rows)</tbody></table>
        \(externalTable)
        \(b2cTable)
        </section>
        """
    }

    static let userFlowPurpose = [
        "susi": "sign up or sign in", "signin": "sign in", "signup": "sign up", "editProfile": "profile editing",
        "passwordReset": "password reset", "ropc": "password grant (ROPC)", "custom": "custom policy",
    ]

    func authorityRow(url: String, what: String, metadata: String, tryIt: String? = nil) -> HTML {
        // nil: no column; empty: a column without a button on this row.
        let tryCell: HTML = tryIt.map { path in
            path.isEmpty ? "<td></td>" : "<td><a class=\"button small\" data-try=\"\(path)\" href=\"\(Self.base)/try?authority=\(FormCoding.encodeComponent(path))\">Try it</a></td>"
        } ?? .empty
        return "<tr data-authority=\"\(url)\"><td>\(Self.copyable(url))</td><td>\(what)</td><td><a href=\"\(metadata)\">openid-configuration</a></td>\(tryCell)</tr>"
    }

    func certificateSection() -> HTML {
        guard let ca = console.certificateAuthority else {
            return "<section id=\"ca\"><h2>Trust the local CA</h2><p class=\"empty\">This server was started without a certificate directory.</p></section>"
        }
        return """
        <section id="ca">
        <h2>Trust the local CA</h2>
        <p>FakeEntra serves HTTPS with certificates from its own CA, limited by name constraints to the names it serves. Clients must trust it once:
        <a href="\(Self.base)/ca.pem" id="caDownload" download>download ca.pem</a> (on disk: \(Self.copyable(ca.path, id: "caPath"))), or run <code>fakeentra certs</code>.</p>
        <details id="caInstructions"><summary>How to trust it: Debian/Ubuntu, macOS, iOS simulator, Python, Node</summary><pre>\(ca.instructions)</pre></details>
        </section>
        """
    }
}
