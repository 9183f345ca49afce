/// Delegated permissions granted to a client for a resource, by one user or by an admin for everyone.
package struct ConsentGrant: Sendable, Codable, Equatable {
    package var clientID: String
    /// The resource's app id.
    package var resourceAppID: String
    /// nil: admin consent on behalf of every user of `tenantID`.
    package var userID: String?
    package var tenantID: String
    package var scopes: [String]

    package init(clientID: String, resourceAppID: String, userID: String?, tenantID: String, scopes: [String]) {
        self.clientID = clientID
        self.resourceAppID = resourceAppID.lowercased()
        self.userID = userID?.lowercased()
        self.tenantID = tenantID.lowercased()
        self.scopes = scopes
    }
}
