package import B2C
package import IdentityPlatform

/// What `serve` prints once it accepts connections: the base URL alone on the first line (scripts read
/// it), then the directory a person can sign in with.
package enum StartupBanner {
    package static func lines(baseURL: String, plainURL: String?, directory: Directory, b2c: B2CConfiguration?, certificateAuthority: String) -> [String] {
        var lines = [baseURL, "FakeEntra \(FakeEntraVersion.current) is ready."]
        if let plainURL { lines.append("Plain HTTP also at \(plainURL)") }
        // The authority as MSAL takes it (README and the console say the same); OIDC libraries take the issuer's /v2.0 form.
        lines.append("MSAL authority: \(baseURL)/<tenant>   OpenID Connect: \(baseURL)/<tenant>/v2.0   Graph: \(baseURL)/v1.0")
        lines.append("Trust this CA in clients: \(certificateAuthority)   (fakeentra certs tells how)")
        // B2C tenants are listed by their own module: policy authorities, accounts by sign-in address.
        for tenant in directory.tenants where tenant.kind != .b2c {
            let name = tenant.kind == .consumers ? "consumers (personal Microsoft accounts)" : "\(tenant.primaryDomain) (\(tenant.kind.rawValue))"
            lines.append("Tenant \(name) \(tenant.id)")
            if tenant.kind == .external {
                let subdomain = tenant.primaryDomain.prefix { $0 != "." }
                lines.append("  authority: \(baseURL)/\(tenant.primaryDomain), or as External ID names it https://\(subdomain).ciamlogin.com/ (docs/external-id.md)")
            }
            for user in directory.users(inTenant: tenant.id) {
                // Customers of an external tenant sign in with their email, never the generated user principal name.
                let signInName = tenant.kind == .external ? user.mail ?? user.userPrincipalName : user.userPrincipalName
                lines.append("  user \(signInName)")
            }
        }
        if let b2c { lines += b2c.bannerLines(baseURL: baseURL) }
        lines.append("Demo password for the embedded users: \(Directory.demoPassword)")
        return lines
    }
}
