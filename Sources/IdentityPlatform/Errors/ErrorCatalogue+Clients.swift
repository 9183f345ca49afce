import EntraHTTP
package import FoundationGaps

/// Part of the AADSTS catalogue (ErrorCatalogue.swift): How a client proves who it is: authentication methods, client and federated assertions.
extension IdentityError {
    // MARK: Client authentication

    package static func invalidClientAssertionType(_ type: String?) -> IdentityError {
        IdentityError(error: "invalid_client", code: 70002, message: "Error validating credentials. The client_assertion_type '\(type ?? "")' is not supported; use 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'.")
    }

    // MARK: Client assertions

    package static func malformedClientAssertion(_ detail: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 50027, message: "Invalid client assertion. \(detail)")
    }

    package static func clientAssertionSignatureInvalid(clientID: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 7000274, message: "Key was found, but use of the key to verify the signature failed. Client assertion failed signature validation for app '\(clientID)'.")
    }

    package static func clientAssertionCertificateNotRegistered(thumbprint: String, clientID: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 700027, message: "The certificate with identifier used to sign the client assertion is not registered on application. [Reason - The key was not found., Thumbprint of key used by client: '\(thumbprint)', Please visit the Azure Portal, Graph Explorer or directly use MS Graph to see configured keys for app Id '\(clientID)'.]")
    }

    /// As recorded from the service (MSAL.NET issue 2746, 2021); the error-code table's own line for 700023
    /// names another error, which the service does not send for it.
    package static func clientAssertionAudienceInvalid() -> IdentityError {
        IdentityError(error: "invalid_client", code: 700023, message: "Client assertion audience claim does not match Realm issuer. Review the documentation at https://learn.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials .")
    }

    /// The service's wording for an `iss` or `sub` that is not the client (Azure SDK for Java's troubleshooting
    /// of AADSTS700021).
    package static func clientAssertionSubjectInvalid() -> IdentityError {
        IdentityError(error: "invalid_client", code: 700021, message: "Client assertion application identifier doesn't match 'client_id' parameter. Review the documentation at https://learn.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials")
    }

    /// As recorded in 2023 (MSAL.NET's test data of a captured answer) and 2024 (a Kubernetes service-account
    /// token, risingwave issue 17123): the three times in .NET's round-trip form, a claim the assertion does
    /// not carry printed as the epoch (the 2023 answer's missing `exp`), the documentation link and its space.
    package static func clientAssertionOutOfRange(now: Date, notBefore: Date?, expiry: Date) -> IdentityError {
        let from = roundTripString(notBefore ?? Date(timeIntervalSince1970: 0))
        return IdentityError(error: "invalid_client", code: 700024, message: "Client assertion is not within its valid time range. Current time: \(roundTripString(now)), assertion valid from \(from), expiry time of assertion \(roundTripString(expiry)). Review the documentation at https://docs.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials .")
    }

    // MARK: Federated (workload identity) assertions

    static func federatedIssuerNotFound(_ issuer: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 700211, message: "No matching federated identity record found for presented assertion issuer '\(issuer)'. Check your federated identity credential Subject, Audience and Issuer against the presented assertion. https://learn.microsoft.com/entra/workload-id/workload-identity-federation")
    }

    static func federatedSubjectNotFound(_ subject: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 700213, message: "No matching federated identity record found for presented assertion subject '\(subject)'. Check your federated identity credential Subject, Audience and Issuer against the presented assertion. https://learn.microsoft.com/entra/workload-id/workload-identity-federation")
    }

    static func federatedAudienceNotFound(_ audience: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 700212, message: "No matching federated identity record found for presented assertion audience '\(audience)'. Check your federated identity credential Subject, Audience and Issuer against the presented assertion. https://learn.microsoft.com/entra/workload-id/workload-identity-federation")
    }
}
