import ExchangeKernel
/// Microsoft's own apps, present in every real tenant: the resources (Azure Resource Manager, Key Vault,
/// Storage…) and the first-party public clients (Azure CLI, Azure PowerShell, Visual Studio, Office…).
/// Every directory answers to them, whatever its configuration, unless it registers an app with the
/// same id. First-party clients need no consent on first-party resources (Microsoft pre-authorizes
/// them; `az login` never shows a consent page), and the family members (FOCI) share refresh tokens.
///
/// Sources, for the ids and family membership:
/// - Azure CLI's id: Azure/azure-cli src/azure-cli-core/azure/cli/core/auth/constants.py
///   @259fd8ac731c3dfd62479c1eda61e08ec7c08be0; its redirect URIs: MSAL for Python application.py
///   (loopback `http://localhost:{port}`) and broker.py (the WAM and macOS broker forms)
///   @7db6c2ccdd121ad730517ebd5e6195feec06ed41.
/// - Azure PowerShell's loopback redirect: Azure/azure-powershell src/Accounts/Authenticators/
///   InteractiveUserAuthenticator.cs @7b1372f503d22e3de242e9ed21da9d9a23ed4e0b.
/// - Visual Studio Code's id: Azure/azure-sdk-for-python sdk/identity/azure-identity/azure/identity/
///   _constants.py @663bea048af448656041d6cf3b4bcf93269d2c19 (AZURE_VSCODE_CLIENT_ID).
/// - Family of client ids: secureworks/family-of-client-ids-research known-foci-clients.csv
///   @52c66c5415738e60c296fce15ada2fcb1845fe68 (the family answers `"foci": "1"`).
/// - The other app ids: MicrosoftDocs/SupportArticles-docs, "Application IDs of commonly used Microsoft
///   applications" (verify-first-party-apps-sign-in.md).
/// - ARM's names (both hosts, with and without the slash): ARM's own metadata document
///   (`authentication.audiences`, Tests/Fidelity/recordings/arm--metadata-endpoints-2015-01-01.json).
/// Redirect URIs no public source shows are left unregistered: such an app accepts the native forms
/// (loopback, `urn:ietf:wg:oauth:2.0:oob`, `msauth…://auth`), as a registration without URIs does.
package enum MicrosoftFirstParty {
    package static let azureCLI = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    package static let azurePowerShell = "1950a258-227b-4e31-a9cf-717495945fc2"
    package static let armAppID = "797f4846-ba00-4fd7-ba43-dac1f8f63013"

    /// The family of client ids Microsoft's own apps share (`foci` in token answers).
    package static let family = "1"

    package static let resources: [Resource] = [
        Resource(
            appID: armAppID, identifierURI: "https://management.core.windows.net/", displayName: "Windows Azure Service Management API",
            delegatedPermissions: [.init("user_impersonation")], applicationPermissions: [], accessTokenVersion: 1,
            otherIdentifierURIs: ["https://management.azure.com/"]
        ),
        Resource(
            appID: "00000002-0000-0000-c000-000000000000", identifierURI: "https://graph.windows.net/", displayName: "Windows Azure Active Directory",
            delegatedPermissions: [.init("User.Read"), .init("Directory.AccessAsUser.All", adminConsentRequired: true)],
            applicationPermissions: ["Directory.Read.All"], accessTokenVersion: 1
        ),
        Resource(
            appID: "cfa8b339-82a2-471a-a3c9-0fc0be7a4093", identifierURI: "https://vault.azure.net", displayName: "Azure Key Vault",
            delegatedPermissions: [.init("user_impersonation")], applicationPermissions: [], accessTokenVersion: 1
        ),
        Resource(
            appID: "e406a681-f3d4-42a8-90b6-c2b029497af1", identifierURI: "https://storage.azure.com/", displayName: "Azure Storage",
            delegatedPermissions: [.init("user_impersonation")], applicationPermissions: [], accessTokenVersion: 1
        ),
        Resource(
            appID: "022907d3-0f1b-48f7-badc-1ba6abab6d66", identifierURI: "https://database.windows.net/", displayName: "Azure SQL Database",
            delegatedPermissions: [.init("user_impersonation")], applicationPermissions: [], accessTokenVersion: 1
        ),
        Resource(
            appID: "499b84ac-1321-427f-aa17-267ca6975798", identifierURI: "499b84ac-1321-427f-aa17-267ca6975798", displayName: "Azure DevOps",
            delegatedPermissions: [.init("user_impersonation")], applicationPermissions: [], accessTokenVersion: 1
        ),
        Resource(
            appID: "00000002-0000-0ff1-ce00-000000000000", identifierURI: "https://outlook.office365.com/", displayName: "Office 365 Exchange Online",
            delegatedPermissions: [.init("EWS.AccessAsUser.All"), .init("Mail.Read"), .init("Calendars.Read")], applicationPermissions: ["full_access_as_app"],
            accessTokenVersion: 1, otherIdentifierURIs: ["https://outlook.office.com/"]
        ),
        Resource(
            appID: "00000003-0000-0ff1-ce00-000000000000", identifierURI: "https://microsoft.sharepoint-df.com/", displayName: "Office 365 SharePoint Online",
            delegatedPermissions: [.init("AllSites.Read"), .init("MyFiles.Read")], applicationPermissions: ["Sites.Read.All"], accessTokenVersion: 1
        ),
    ]

    /// Graph permissions the command-line tools hold without consent (what `az ad` and `Get-Az…` need).
    private static let toolPermissions: [Application.RequiredResourceAccess] = [
        .init(resource: Resource.graphAppID, scopes: ["User.Read", "User.ReadWrite.All", "Directory.AccessAsUser.All", "Group.ReadWrite.All", "Application.ReadWrite.All"]),
        .init(resource: armAppID, scopes: ["user_impersonation"]),
    ]

    /// Office-family apps: the user's own mail, calendar and files.
    private static let officePermissions: [Application.RequiredResourceAccess] = [
        .init(resource: Resource.graphAppID, scopes: ["User.Read", "Mail.Read", "Calendars.ReadWrite", "Files.ReadWrite", "People.Read"]),
    ]

    package static let applications: [Application] = [
        Application(
            clientID: azureCLI, displayName: "Microsoft Azure CLI",
            redirectURIs: ["http://localhost", "ms-appx-web://Microsoft.AAD.BrokerPlugin/\(azureCLI)", "msauth.com.msauth.unsignedapp://auth"],
            requiredResourceAccess: toolPermissions, familyID: family
        ),
        Application(clientID: azurePowerShell, displayName: "Microsoft Azure PowerShell", redirectURIs: ["http://localhost"],
                    requiredResourceAccess: toolPermissions, familyID: family),
        Application(clientID: "872cd9fa-d31f-45e0-9eab-6e460a02d1f1", displayName: "Visual Studio", requiredResourceAccess: toolPermissions, familyID: family),
        Application(clientID: "aebc6443-996d-45c2-90f0-388ff96faa56", displayName: "Visual Studio Code", requiredResourceAccess: toolPermissions),
        Application(clientID: "14d82eec-204b-4c2f-b7e8-296a70dab67e", displayName: "Microsoft Graph Command Line Tools", requiredResourceAccess: toolPermissions),
        Application(clientID: "d3590ed6-52b3-4102-aeff-aad2292ab01c", displayName: "Microsoft Office", requiredResourceAccess: officePermissions, familyID: family),
        Application(clientID: "1fec8e78-bce4-4aaf-ab1b-5451cc387264", displayName: "Microsoft Teams", requiredResourceAccess: officePermissions, familyID: family),
        Application(clientID: "27922004-5251-4030-b22d-91ecd9a37ea4", displayName: "Outlook Mobile", requiredResourceAccess: officePermissions, familyID: family),
        Application(clientID: "ab9b8c07-8f02-4f72-87fa-80105867a763", displayName: "OneDrive SyncEngine", requiredResourceAccess: officePermissions, familyID: family),
        Application(clientID: "4813382a-8fa7-425e-ab75-3b753aab3abb", displayName: "Microsoft Authenticator App",
                    requiredResourceAccess: [.init(resource: Resource.graphAppID, scopes: ["User.Read"])], familyID: family),
    ]

    package static func application(clientID: String) -> Application? {
        applications.first { $0.clientID.equalsIgnoringCase(clientID) }
    }

    package static func resource(named identifier: String) -> Resource? {
        resources.first { $0.isNamed(identifier) }
    }

    /// A first-party client asking for a first-party resource (Graph included) needs no consent.
    package static func isPreAuthorized(clientID: String, resourceAppID: String) -> Bool {
        application(clientID: clientID) != nil
            && (resourceAppID == Resource.graphAppID || resources.contains { $0.appID == resourceAppID })
    }
}
