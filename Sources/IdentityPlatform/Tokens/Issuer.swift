/// Every issuer the platform writes into its tokens and discovery documents, built and read here alone:
/// - v1: `https://sts.windows.net/{tenant}/`, the security token service's own host whichever host
///   answered (real v1 tokens and v1 metadata alike; APIs migrated from ADAL validate exactly this string);
/// - v2: `{origin}/{tenant}/v2.0`, on the host that answered (`{tenantid}` in a multi-tenant document);
/// - External ID on a ciamlogin host: `https://{tenantid}.ciamlogin.com/{tenantid}/v2.0` whichever
///   subdomain answered (learn.microsoft.com, "Tokens in External ID");
/// - B2C: `{origin}/{tenantid}/v2.0/`, with its trailing slash.
package enum Issuer {
    package static func v1(tenantID: String) -> String { "https://sts.windows.net/\(tenantID)/" }

    package static func v2(origin: String, tenant: String) -> String { "\(origin)/\(tenant)/v2.0" }

    package static func externalID(tenantID: String) -> String { "https://\(tenantID).ciamlogin.com/\(tenantID)/v2.0" }

    package static func b2c(origin: String, tenantID: String) -> String { "\(origin)/\(tenantID)/v2.0/" }

    /// The tenant an issuer of any of these forms names, lower-cased: the first path segment of
    /// `/{tenant}/`, `/{tenant}/v2.0` or `/{tenant}/v2.0/`; nil for any other shape.
    package static func tenant(in issuer: String) -> String? {
        guard let schemeEnd = issuer.firstRange(of: "://") else { return nil }
        let segments = Array(issuer[schemeEnd.upperBound...].split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        guard segments.count >= 2, !segments[0].isEmpty else { return nil }
        switch segments.count {
        case 2 where segments[1].isEmpty || segments[1] == "v2.0": return segments[0].lowercased()
        case 3 where segments[1] == "v2.0" && segments[2].isEmpty: return segments[0].lowercased()
        default: return nil
        }
    }

    /// `issuer` naming `tenant` instead of the tenant it names; nil when it names none.
    package static func replacingTenant(in issuer: String, with tenant: String) -> String? {
        guard let named = Self.tenant(in: issuer), let schemeEnd = issuer.firstRange(of: "://"),
              let slash = issuer[schemeEnd.upperBound...].firstIndex(of: "/") else { return nil }
        let path = issuer[slash...]
        let rest = path.dropFirst(1 + named.count)
        return String(issuer[..<slash]) + "/" + tenant + rest
    }
}
