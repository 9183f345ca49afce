package import ExchangeKernel
package import FoundationGaps
import LocatedJSON

/// OnAttributeCollectionStart and OnAttributeCollectionSubmit: External ID's sign-up calls the extensions
/// listening for the app before its attribute page shows (prefill, or block) and once the attributes are
/// submitted (change them, refuse them with a message, or block)
/// (learn.microsoft.com/entra/identity-platform/custom-extension-onattributecollectionstart-reference and
/// …-onattributecollectionsubmit-reference).
package struct AttributeCollection {
    /// What the sign-up does next.
    package enum Outcome: Equatable {
        /// Carry on with these values (prefilled at start, modified at submit, or as they were).
        case proceed([String: String])
        /// The attribute page again, with this message (submit's showValidationError).
        case refused(String)
        /// The sign-up ends on a page saying this (showBlockPage).
        case blocked(String)
        /// The extension failed: the sign-up fails as the service fails it (AADSTS1100001).
        case failed
    }

    /// The block page's words when the answer has no `message`.
    static let defaultBlockMessage = "You are not permitted to sign up. Please contact the owner of the application/website."

    let service: IdentityService
    let origin: String
    let now: Date
    let receipt: ReceiptRecorder
    let clientAddress: String?

    package init(service: IdentityService, origin: String, now: Date, receipt: ReceiptRecorder, clientAddress: String?) {
        self.service = service
        self.origin = origin
        self.now = now
        self.receipt = receipt
        self.clientAddress = clientAddress
    }

    /// Calls the tenant's extensions for `event` that listen for `client` (or for every app), in order;
    /// each sees the values the one before left.
    package func run(_ event: CustomAuthenticationExtension.Event, tenant: Tenant, client: Application, resource: Resource?,
                     email: String, values: [String: String]) -> Outcome {
        let userFlow = tenant.externalUserFlow
        var values = values
        let callout = ExtensionCallout(transport: service.extensionTransport, strict: service.options.strict)
        for ext in tenant.extensions(at: event) where ext.listensForSignIn(of: client.clientID) {
            var data = [("authenticationContext", JSONValue.object(ExtensionContext.members(tenantID: tenant.id, clientAddress: clientAddress, client: client, resource: resource)))]
            data.append(("userSignUpInfo", .object([
                ("attributes", .object(userFlow.attributes.compactMap { attribute in values[attribute.name].map { (attribute.name, Self.typed(attribute, $0)) } })),
                ("identities", .array([.object([("signInType", .string("email")), ("issuer", .string(tenant.primaryDomain)), ("issuerAssignedId", .string(email))])])),
            ])))
            let payload = ExtensionCallout.envelope(ext, tenantID: tenant.id, sourceAppID: client.clientID, data: data)
            let bearer = ExtensionBearer.token(for: ext, tenant: tenant, service: service, origin: origin, now: now)
            guard case .success(let action) = callout.call(ext, payload: payload, bearer: bearer, record: receipt.calledExtension, reading: { action, _ in .success(action) }) else {
                return .failed
            }
            switch action.actionName(for: event) {
            case "setPrefillValues": values.merge(Self.values(action["inputs"], of: userFlow)) { _, new in new }
            case "modifyAttributeValues": values.merge(Self.values(action["attributes"], of: userFlow)) { _, new in new }
            case "showBlockPage": return .blocked(action["message"]?.string ?? Self.defaultBlockMessage)
            case "showValidationError": return .refused(Self.validationMessage(action, userFlow: userFlow))
            default: break
            }
        }
        return .proceed(values)
    }

    /// An attribute's value as the callout types it (`stringDirectoryAttributeValue`…), built-in or an
    /// `extension_` attribute.
    static func typed(_ attribute: SignUpAttribute, _ value: String) -> JSONValue {
        let (type, json): (String, JSONValue) = switch attribute.type {
        case .boolean: ("microsoft.graph.booleanDirectoryAttributeValue", .bool(value == "true"))
        case .int: ("microsoft.graph.int64DirectoryAttributeValue", Int(value).map(JSONValue.int) ?? .string(value))
        case .string: ("microsoft.graph.stringDirectoryAttributeValue", .string(value))
        }
        let kind = attribute.name.hasPrefix("extension_") ? "directorySchemaExtension" : "builtIn"
        return .object([("@odata.type", .string(type)), ("value", json), ("attributeType", .string(kind))])
    }

    /// The answer's values for attributes the flow collects ("any extra attributes that are returned but
    /// that aren't part of the attribute collection are ignored"), as the page holds them.
    static func values(_ object: JSONValue?, of userFlow: ExternalUserFlow) -> [String: String] {
        var values: [String: String] = [:]
        for member in object?.members ?? [] where userFlow.attributes.contains(where: { $0.name == member.key }) {
            if let text = member.value.string { values[member.key] = text }
            else if let flag = member.value.bool { values[member.key] = flag ? "true" : "false" }
            else if let number = member.value.number { values[member.key] = number.literal }
        }
        return values
    }

    /// showValidationError's message, then each attribute's own, by the label the page shows.
    static func validationMessage(_ action: JSONValue, userFlow: ExternalUserFlow) -> String {
        let errors = (action["attributeErrors"]?.members ?? []).compactMap { member -> String? in
            guard let text = member.value.string else { return nil }
            let label = userFlow.attributes.first { $0.name == member.key }?.displayLabel ?? member.key
            return "\(label): \(text)"
        }
        return ([action["message"]?.string ?? "Please fix the errors below."] + errors).joined(separator: " ")
    }
}
