package import ExchangeKernel
package import EntraHTTP

/// The local endpoints a managed identity gets its tokens from, served on FakeEntra's host so that
/// azure-identity reaches them through its documented overrides: IMDS's path
/// (`AZURE_POD_IDENTITY_AUTHORITY_HOST=https://host`), App Service's endpoint (`IDENTITY_ENDPOINT=https://host/msi/token`)
/// Azure Arc's (`IDENTITY_ENDPOINT=https://host/azurearc/metadata/identity/oauth2/token` with `IMDS_ENDPOINT` set)
/// and Cloud Shell's (`MSI_ENDPOINT=https://host/cloudshell/oauth2/token` without `MSI_SECRET`).
package enum ManagedIdentityRoute: Sendable, Equatable {
    /// An endpoint that answers for an identity of the host (IMDS, an agent, a platform's token service).
    case host(HostEndpoint)
    /// `POST /cloudshell/oauth2/token` (a form with `resource`), or a GET with it in the query: Azure Cloud
    /// Shell's endpoint (MSI_ENDPOINT), which answers for the signed-in person.
    case cloudShell

    package enum HostEndpoint: Sendable, Equatable {
        /// `GET /metadata/identity/oauth2/token` with `Metadata: true`.
        case instanceMetadata
        /// `GET /msi/token` with `X-IDENTITY-HEADER`.
        case appService
        /// `GET /servicefabric/metadata/identity/oauth2/token` with `secret`: a Service Fabric node's agent.
        case serviceFabric
        /// `GET /azureml/msi/token` with `secret`: Azure Machine Learning compute's endpoint (MSI_ENDPOINT).
        case azureML
        /// `GET /azurearc/metadata/identity/oauth2/token` with `Metadata: true`: an Azure Arc-enabled server's
        /// agent (HIMDS, `localhost:40342` on the machine), which challenges the caller to read a key file.
        case azureArc
    }

    package static func parse(_ request: HTTPRequest) -> ManagedIdentityRoute? {
        let segments = request.pathSegments.map { $0.lowercased() }
        switch segments {
        case ["metadata", "identity", "oauth2", "token"]: return .host(.instanceMetadata)
        case ["msi", "token"]: return .host(.appService)
        case ["servicefabric", "metadata", "identity", "oauth2", "token"]: return .host(.serviceFabric)
        case ["azureml", "msi", "token"]: return .host(.azureML)
        case ["azurearc", "metadata", "identity", "oauth2", "token"]: return .host(.azureArc)
        case ["cloudshell", "oauth2", "token"], ["cloudshell", "metadata", "identity", "oauth2", "token"]: return .cloudShell
        default: return nil
        }
    }
}

extension ManagedIdentityRoute: ServiceRoute {
    package static var service: ServiceName { .managedIdentity }
    package var journalKind: String { "managed_identity" }
    package var ruleEndpoint: EndpointKind { .managedidentity }
}

/// The managed identity endpoints' fixed paths.
package struct ManagedIdentityRoutes: RouteCollection {
    package init() {}

    package func route(_ request: HTTPRequest) -> (any ServiceRoute)? { ManagedIdentityRoute.parse(request) }
}
