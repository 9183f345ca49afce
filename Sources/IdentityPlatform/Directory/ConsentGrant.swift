/// Delegated permissions granted to a client for a resource, by one user or by an admin for everyone.
public struct ConsentGrant: Sendable, Codable, Equatable {
    public var clientID: String
    /// The resource's app id.
    public var resourceAppID: String
    /// nil: admin consent on behalf of every user of `tenantID`.
    public var userID: String?
    public var tenantID: String
    public var scopes: [String]

    public init(clientID: String, resourceAppID: String, userID: String?, tenantID: String, scopes: [String]) {
        self.clientID = clientID
        self.resourceAppID = resourceAppID.lowercased()
        self.userID = userID?.lowercased()
        self.tenantID = tenantID.lowercased()
        self.scopes = scopes
    }
}
