/// An Azure subscription a tenant holds, as Azure Resource Manager lists it to `az login`. A tenant that
/// names none gets one demo subscription (organisations only: personal accounts and B2C tenants hold none).
package struct AzureSubscription: Sendable, Codable, Equatable {
    package var subscriptionId: String
    package var displayName: String
    /// `Enabled`, `Disabled`, `Warned`, `PastDue` or `Deleted`, as ARM spells them.
    package var state: String

    package init(subscriptionId: String, displayName: String, state: String = "Enabled") {
        self.subscriptionId = subscriptionId.lowercased()
        self.displayName = displayName
        self.state = state
    }

    enum CodingKeys: String, CodingKey { case subscriptionId, displayName, state }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(subscriptionId: try container.decode(String.self, forKey: .subscriptionId),
                  displayName: try container.decode(String.self, forKey: .displayName),
                  state: try container.decodeIfPresent(String.self, forKey: .state) ?? "Enabled")
    }
}

extension Tenant {
    /// The configured subscriptions, else the demo one (a GUID derived from the tenant's).
    package var azureSubscriptions: [AzureSubscription] {
        if let subscriptions { return subscriptions }
        guard kind == .organization else { return [] }
        return [AzureSubscription(subscriptionId: TokenIdentifiers.guid(from: "fakeentra-subscription:\(id)"), displayName: "\(displayName) demo subscription")]
    }
}
