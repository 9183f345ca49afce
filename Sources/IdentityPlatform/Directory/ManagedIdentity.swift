import ExchangeKernel
/// A managed identity: an Azure resource's own service principal, whose tokens the resource gets from its
/// local endpoint (IMDS on a VM, `IDENTITY_ENDPOINT` on App Service) without any secret. A system-assigned
/// identity is the resource's own; user-assigned ones are picked by client id, object id or resource id.
package struct ManagedIdentity: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable { case system, user }

    package var name: String
    package var clientID: String
    /// The service principal's object id (`oid` and `sub` of its tokens).
    package var objectID: String
    package var tenantID: String
    package var kind: Kind
    /// The Azure resource id (`xms_mirid`): the VM for a system-assigned identity, the identity resource otherwise.
    package var resourceID: String

    package init(name: String, clientID: String, objectID: String, tenantID: String, kind: Kind, resourceID: String) {
        self.name = name
        self.clientID = clientID.lowercased()
        self.objectID = objectID.lowercased()
        self.tenantID = tenantID.lowercased()
        self.kind = kind
        self.resourceID = resourceID
    }

    /// What the endpoints select an identity by (`client_id`, `object_id`, `msi_res_id` / `mi_res_id`).
    package enum Selector: Sendable, Equatable {
        case system
        case clientID(String)
        case objectID(String)
        case resourceID(String)
    }

    /// The demo tenant's identities, with fixed ids a test can name: a VM's system-assigned one and a
    /// user-assigned one, in the tenant's demo subscription.
    package static func demo(in tenant: Tenant) -> [ManagedIdentity] {
        let subscription = tenant.azureSubscriptions.first?.subscriptionId ?? "00000000-0000-0000-0000-000000000000"
        let group = "/subscriptions/\(subscription)/resourcegroups/demo/providers"
        return [
            ManagedIdentity(name: "demo-vm", clientID: demoSystemClientID, objectID: "a1b2c3d4-5e6f-4a8b-9c0d-1e2f3a4b5c6d", tenantID: tenant.id,
                            kind: .system, resourceID: "\(group)/Microsoft.Compute/virtualMachines/demo-vm"),
            ManagedIdentity(name: "demo-identity", clientID: demoUserAssignedClientID, objectID: "c2d3e4f5-6a7b-4c8d-9e0f-1a2b3c4d5e6f", tenantID: tenant.id,
                            kind: .user, resourceID: "\(group)/Microsoft.ManagedIdentity/userAssignedIdentities/demo-identity"),
        ]
    }

    package static let demoSystemClientID = "5f1d3a2b-8c4e-4d6f-9a1b-2c3d4e5f6a7b"
    package static let demoUserAssignedClientID = "7e2c4b6a-1d3f-4e5a-8b9c-0d1e2f3a4b5c"
}

extension Directory {
    /// The identity a managed-identity endpoint is asked for, if the directory holds it.
    package func managedIdentity(_ selector: ManagedIdentity.Selector) -> ManagedIdentity? {
        switch selector {
        case .system: managedIdentities.first { $0.kind == .system }
        case .clientID(let id): managedIdentities.first { $0.clientID == id.lowercased() }
        case .objectID(let id): managedIdentities.first { $0.objectID == id.lowercased() }
        case .resourceID(let id): managedIdentities.first { $0.resourceID.equalsIgnoringCase(id) }
        }
    }
}
