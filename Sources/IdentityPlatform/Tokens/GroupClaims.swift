import LocatedJSON
/// The `groups` claim of a user's tokens, for an app whose `groupMembershipClaims` asks for it: the object
/// ids of the user's groups (nested ones included), security groups only for `SecurityGroup`. Past the
/// JWT limit of 200 the claim gives way to the overage form, a pointer to where the membership can be read
/// (Microsoft's access-token claims reference: `_claim_names` / `_claim_sources` with a `getMemberObjects`
/// endpoint; 150 in SAML, 200 in JWTs).
struct GroupClaims {
    static let jwtLimit = 200

    /// nil: no claim at all (the app asks for none, or the token is app-only).
    let groupIDs: [String]?
    let userID: String
    let tenantID: String

    init(issue: TokenIssue, directory: Directory?) {
        userID = issue.user?.id ?? ""
        tenantID = issue.tenant.id
        guard let directory, let user = issue.user, let setting = issue.client.application.groupMembershipClaims, setting != .none else {
            groupIDs = nil
            return
        }
        let groups = directory.transitiveGroups(of: user.id)
        groupIDs = (setting == .securityGroup ? groups.filter(\.securityEnabled) : groups).map(\.id)
    }

    func add(to claims: inout ClaimSet) {
        guard let groupIDs else { return }
        guard groupIDs.count <= Self.jwtLimit else {
            claims.set("_claim_names", .object([("groups", .string("src1"))]))
            let endpoint = "https://graph.microsoft.com/v1.0/users/\(userID)/getMemberObjects"
            claims.set("_claim_sources", .object([("src1", .object([("endpoint", .string(endpoint))]))]))
            return
        }
        claims.set("groups", groupIDs)
    }
}
