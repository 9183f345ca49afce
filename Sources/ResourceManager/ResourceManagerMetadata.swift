import LocatedJSON
import IdentityPlatform

/// `GET /metadata/endpoints`: the cloud's endpoints, as `az cloud register` reads them (2015-01-01: login
/// endpoint, ARM's audiences, Azure AD Graph) and as `ARM_CLOUD_METADATA_URL` lists clouds (2019-05-01:
/// an array). Newer versions answer one cloud object (recorded 2022-09-01). The login endpoint is
/// FakeEntra's own origin, so a cloud registered from this document signs in against FakeEntra; the
/// resource ids stay the real ones, which FakeEntra's directory holds.
struct ResourceManagerMetadata {
    /// FakeEntra's sign-in origin, without a trailing slash.
    let login: String
    /// ARM's root as the client reached it.
    let resourceManager: String

    func document(apiVersion: String) -> JSONValue {
        let loginWithSlash = login + "/"
        let audiences: JSONValue = .strings(["https://management.core.windows.net/", "https://management.azure.com/"])
        if apiVersion < "2019-05-01" {
            return .object([
                ("galleryEndpoint", .string("https://gallery.azure.com/")),
                ("graphEndpoint", .string("https://graph.windows.net/")),
                ("portalEndpoint", .string("https://portal.azure.com/")),
                ("authentication", .object([("loginEndpoint", .string(loginWithSlash)), ("audiences", audiences)])),
            ])
        }
        // The public cloud's document (recorded 2022-09-01) with FakeEntra as its login endpoint and ARM.
        let cloud: JSONValue = .object([
            ("portal", .string("https://portal.azure.com")),
            ("authentication", .object([("loginEndpoint", .string(login)), ("audiences", audiences), ("tenant", .string("common")), ("identityProvider", .string("AAD"))])),
            ("media", .string("https://rest.media.azure.net")),
            ("graphAudience", .string("https://graph.windows.net/")),
            ("graph", .string("https://graph.windows.net/")),
            ("name", .string("FakeEntra")),
            ("suffixes", .object(Self.suffixes.map { ($0.0, .string($0.1)) })),
            ("batch", .string("https://batch.core.windows.net/")),
            ("resourceManager", .string(resourceManager)),
            ("vmImageAliasDoc", .string("https://raw.githubusercontent.com/Azure/azure-rest-api-specs/master/arm-compute/quickstart-templates/aliases.json")),
            ("activeDirectoryDataLake", .string("https://datalake.azure.net/")),
            ("sqlManagement", .string("https://management.core.windows.net:8443/")),
            ("microsoftGraphResourceId", .string("https://graph.microsoft.com/")),
            ("appInsightsResourceId", .string("https://api.applicationinsights.io")),
            ("appInsightsTelemetryChannelResourceId", .string("https://dc.applicationinsights.azure.com/v2/track")),
            ("attestationResourceId", .string("https://attest.azure.net")),
            ("synapseAnalyticsResourceId", .string("https://dev.azuresynapse.net")),
            ("logAnalyticsResourceId", .string("https://api.loganalytics.io")),
            ("ossrDbmsResourceId", .string("https://ossrdbms-aad.database.windows.net")),
        ])
        return apiVersion < "2022-09-01" ? .array([cloud]) : cloud
    }

    static let suffixes: [(String, String)] = [
        ("azureDataLakeStoreFileSystem", "azuredatalakestore.net"), ("acrLoginServer", "azurecr.io"),
        ("sqlServerHostname", "database.windows.net"), ("azureDataLakeAnalyticsCatalogAndJob", "azuredatalakeanalytics.net"),
        ("keyVaultDns", "vault.azure.net"), ("storage", "core.windows.net"), ("azureFrontDoorEndpointSuffix", "azurefd.net"),
        ("storageSyncEndpointSuffix", "afs.azure.net"), ("mhsmDns", "managedhsm.azure.net"), ("mysqlServerEndpoint", "mysql.database.azure.com"),
        ("postgresqlServerEndpoint", "postgres.database.azure.com"), ("mariadbServerEndpoint", "mariadb.database.azure.com"),
        ("synapseAnalytics", "dev.azuresynapse.net"), ("attestationEndpoint", "attest.azure.net"),
    ]
}
