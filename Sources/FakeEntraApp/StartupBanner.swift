import IdentityPlatform

/// What `serve` prints once it accepts connections: the base URL alone on the first line (scripts read
/// it), then the directory a person can sign in with.
public enum StartupBanner {
    public static func lines(baseURL: String, plainURL: String?, directory: Directory, certificateAuthority: String) -> [String] {
        var lines = [baseURL, "FakeEntra \(FakeEntraVersion.current) is ready."]
        if let plainURL { lines.append("Plain HTTP also at \(plainURL)") }
        lines.append("Authority (v2): \(baseURL)/<tenant>/v2.0   Graph: \(baseURL)/v1.0")
        lines.append("Trust this CA in clients: \(certificateAuthority)   (fakeentra certs tells how)")
        for tenant in directory.tenants {
            lines.append("Tenant \(tenant.primaryDomain) (\(tenant.kind.rawValue)) \(tenant.id)")
            for user in directory.users(inTenant: tenant.id) {
                lines.append("  user \(user.userPrincipalName)")
            }
        }
        lines.append("Demo password for the embedded users: \(Directory.demoPassword)")
        return lines
    }
}
