import IdentityFixtures
import ExchangeKernel
import Foundation
import LocatedJSON
import Synchronization
import Testing
@testable import IdentityPlatform

/// Custom authentication extensions: the configuration checks Graph applies, and every way an endpoint's
/// answer can be wrong mapped to the 1003xxx code the sign-in log shows
/// (learn.microsoft.com/entra/identity-platform/custom-extension-troubleshoot).
@Suite struct CustomExtensionTests {
    /// An endpoint answering from a script, one answer per attempt.
    final class ScriptedEndpoint: ExtensionTransport {
        let answers: Mutex<[ExtensionTransportResult]>
        let attempts = Mutex(0)
        init(_ answers: [ExtensionTransportResult]) { self.answers = Mutex(answers) }
        func post(to endpoint: ExtensionEndpoint, headers: [(String, String)], body: [UInt8], timeout: Duration) -> ExtensionTransportResult {
            attempts.withLock { $0 += 1 }
            return answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        }
    }

    static let ext = CustomAuthenticationExtension(id: "e", listenerID: "l", displayName: "claims", event: .tokenIssuanceStart,
                                                   targetURL: "https://api.example/claims?code=secret", resourceID: "api://api.example/a1",
                                                   maximumRetries: 1, applications: ["c1"])

    static func json(_ text: String) -> ExtensionTransportResult { .answered(status: 200, contentType: "application/json; charset=utf-8", body: Array(text.utf8)) }

    static let claims = #"{"data":{"@odata.type":"microsoft.graph.onTokenIssuanceStartResponseData","actions":[{"@odata.type":"microsoft.graph.tokenIssuanceStart.provideClaimsForToken","claims":%@}]}}"#

    func outcome(_ answers: [ExtensionTransportResult], strict: Bool = false, ext: CustomAuthenticationExtension = ext) -> (Result<JSONValue, ExtensionFailure>, Receipt.ExtensionCall?, Int) {
        let endpoint = ScriptedEndpoint(answers)
        var recorded: Receipt.ExtensionCall?
        let result = ExtensionCallout(transport: endpoint, strict: strict).call(ext, payload: .object([:]), bearer: .success("t"), record: { recorded = $0 }, reading: { action, _ in .success(action) })
        return (result, recorded, endpoint.attempts.withLock { $0 })
    }

    /// The refusal's code, as the token-issuance callout reads the answer; the receipt's call names the same one.
    func code(_ answers: [ExtensionTransportResult]) -> Int? {
        var recorded: Receipt.ExtensionCall?
        let result = ExtensionCallout(transport: ScriptedEndpoint(answers), strict: false)
            .call(Self.ext, payload: .object([:]), bearer: .success("t"), record: { recorded = $0 }, reading: { action, _ in TokenIssuanceStart.claims(of: action) })
        switch result {
        case .success:
            #expect(recorded?.failure == nil)
            return nil
        case .failure(let failure):
            #expect(recorded?.failure == failure.description, "the receipt names the refusal, the claims' own included")
            return failure.code.rawValue
        }
    }

    @Test func everyMalformedAnswerHasItsCode() {
        #expect(code([.answered(status: 400, contentType: "application/json", body: [])]) == 1003002)
        #expect(code([.answered(status: 200, contentType: "text/plain", body: Array("{}".utf8))]) == 1003006)
        #expect(code([Self.json("  ")]) == 1003009)
        #expect(code([Self.json("null")]) == 1003009)
        #expect(code([Self.json("[1]")]) == 1003003)
        #expect(code([Self.json(#"{"data":{"@odata.type":"microsoft.graph.onTokenIssuanceStartResponseData","actions":[]}}"#)]) == 1003010)
        #expect(code([Self.json(#"{"data":{"@odata.type":"microsoft.graph.onTokenIssuanceStartResponseData","actions":[{"@odata.type":"microsoft.graph.tokenIssuanceStart.showBlockPage"}]}}"#)]) == 1003012)
        #expect(code([Self.json(#"{"data":{"@odata.type":"microsoft.graph.onAttributeCollectionStartResponseData","actions":[]}}"#)]) == 1003003)
        #expect(code([Self.json(String(format: Self.claims, "null"))]) == 1003007)
        #expect(code([Self.json(String(format: Self.claims, #"{"":"x"}"#))]) == 1003026)
        #expect(code([Self.json(String(format: Self.claims, #"{"n":1}"#))]) == 1003003, "numbers are not a supported claim type")
        #expect(code([Self.json(String(format: Self.claims, #"{"big":"\#(String(repeating: "x", count: 3100))"}"#))]) == 1003025)
        #expect(code([.timedOut]) == 1003005)
        #expect(code([.unreachable("refused")]) == 1003027)
        #expect(code([.tooLarge]) == 1003024)
        #expect(code([Self.json(String(format: Self.claims, #"{"tier":"gold","roles":["a","b"]}"#))]) == nil)
    }

    /// Microsoft's own samples spell the types with other cases (`@odata.Type`, `ShowValidationError`).
    @Test func typesAreMatchedWithoutCase() {
        let answer = #"{"data":{"@odata.Type":"Microsoft.Graph.OnTokenIssuanceStartResponseData","actions":[{"@odata.type":"microsoft.graph.tokenIssuanceStart.ProvideClaimsForToken","claims":{}}]}}"#
        #expect(code([Self.json(answer)]) == nil)
    }

    @Test func timeoutsFailedConnectionsAndServerErrorsAreTriedOnceMore() {
        let (retried, record, attempts) = outcome([.timedOut, Self.json(String(format: Self.claims, "{}"))])
        #expect((try? retried.get()) != nil && attempts == 2 && record?.attempts == 2 && record?.failure == nil)
        #expect(outcome([.answered(status: 502, contentType: nil, body: [])]).2 == 2)
        #expect(outcome([.answered(status: 403, contentType: nil, body: [])]).2 == 1, "a 4xx is not retried")
        var once = Self.ext
        once.maximumRetries = 0
        #expect(outcome([.timedOut], ext: once).2 == 1)
    }

    /// The function key in an Azure Functions URL stays out of the journal.
    @Test func theRecordLeavesTheQueryOut() {
        #expect(outcome([.timedOut]).1?.targetURL == "https://api.example/claims")
    }

    /// Plain http reaches only this machine, and not with --strict: the service calls https only (1003020).
    @Test func plainHTTPOnlyToLoopbackAndNotStrict() {
        var local = Self.ext
        local.targetURL = "http://localhost:7071/api/claims"
        #expect(outcome([Self.json(String(format: Self.claims, "{}"))], ext: local).2 == 1)
        if case .failure(let failure) = outcome([.timedOut], strict: true, ext: local).0 { #expect(failure.code == .incorrectTargetURL) } else { Issue.record("strict mode called http") }
        var remote = Self.ext
        remote.targetURL = "http://api.example/claims"
        #expect(outcome([.timedOut], ext: remote).2 == 0)
    }

    @Test func theConfigurationIsCheckedAsGraphChecksIt() {
        func problems(_ extensions: String, kind: String = "organization") -> [String] {
            let text = """
            {"tenants": [{"id": "11111111-1111-4111-8111-111111111111", "domains": ["fabrikam.onmicrosoft.com"], "kind": "\(kind)",
              "customAuthenticationExtensions": [\(extensions)]}]}
            """
            do {
                _ = try ConfigurationLoader.load(bytes: Array(text.utf8), file: "config.json")
                return []
            } catch {
                return error.problems.map { "\($0.path): \($0.message)" }
            }
        }
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "https://a.example/x", "resourceId": "api://a.example/app", "applications": ["c"]}"#).isEmpty)
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "ftp://a.example/x", "resourceId": "api://a.example/app", "applications": ["c"]}"#).first?.contains("1003020") == true)
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "https://a.example/x", "resourceId": "https://a.example/app", "applications": ["c"]}"#).first?.contains("1003014") == true)
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "https://a.example/x", "resourceId": "api://b.example/app", "applications": ["c"]}"#).first?.contains("1003015") == true)
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "https://a.example/x", "resourceId": "api://a.example/app"}"#).first?.contains("names no application") == true)
        #expect(problems(#"{"event": "attributeCollectionSubmit", "targetUrl": "https://a.example/x", "resourceId": "api://a.example/app"}"#).first?.contains("attribute collection and password migration are External ID's") == true)
        #expect(problems(#"{"event": "tokenIssuanceStart", "targetUrl": "https://a.example/x", "resourceId": "api://a.example/app", "applications": ["c"], "timeoutInMilliseconds": 5000}"#).count == 1)
    }

    /// Attribute collection: each listening extension sees the values the one before left; a prefill of
    /// an attribute the flow does not collect is ignored; a validation error names the attributes by label.
    @Test func attributeCollectionChainsTheExtensionsAnswers() {
        var tenant = Tenant(id: "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", displayName: "Shop", domains: ["shop.onmicrosoft.com"], kind: .external,
                            userFlow: ExternalUserFlow(emailMethod: nil, attributes: [SignUpAttribute(name: "displayName", label: nil, type: .string, required: true, regex: nil),
                                                                                       SignUpAttribute(name: "city", label: "Town", type: .string, required: false, regex: nil)]))
        func ext(_ event: CustomAuthenticationExtension.Event, _ n: Int) -> CustomAuthenticationExtension {
            CustomAuthenticationExtension(id: "e\(n)", listenerID: "l\(n)", displayName: "x", event: event, targetURL: "https://x.example/\(n)", resourceID: "api://x.example/a", applications: [])
        }
        tenant.customAuthenticationExtensions = [ext(.attributeCollectionSubmit, 1), ext(.attributeCollectionSubmit, 2)]
        let modify = Self.json(#"{"data":{"@odata.type":"microsoft.graph.onAttributeCollectionSubmitResponseData","actions":[{"@odata.type":"microsoft.graph.attributeCollectionSubmit.modifyAttributeValues","attributes":{"city":"Paris","notCollected":"x"}}]}}"#)
        let refuse = Self.json(#"{"data":{"@odata.type":"microsoft.graph.onAttributeCollectionSubmitResponseData","actions":[{"@odata.type":"microsoft.graph.attributeCollectionSubmit.showValidationError","message":"Fix it.","attributeErrors":{"city":"Not Paris"}}]}}"#)
        func run(_ answers: [ExtensionTransportResult]) -> AttributeCollection.Outcome {
            var options = IdentityOptions()
            options.extensionTransport = ExtensionTransportReference(ScriptedEndpoint(answers))
            let (service, _) = TokenFixtures.service(options: options)
            // The extension's bearer is the tenant's token: the tenant is the directory's.
            service.directory.withLock { $0.tenants.append(tenant) }
            let client = Application(clientID: "c1", displayName: "Shop app")
            return AttributeCollection(service: service, origin: "https://login.fake.test", now: Date(), receipt: ReceiptRecorder(), clientAddress: nil)
                .run(.attributeCollectionSubmit, tenant: tenant, client: client, resource: nil, email: "a@b.example", values: ["displayName": "Ada"])
        }
        #expect(run([modify, Self.json(#"{"data":{"@odata.type":"microsoft.graph.onAttributeCollectionSubmitResponseData","actions":[{"@odata.type":"microsoft.graph.attributeCollectionSubmit.continueWithDefaultBehavior"}]}}"#)])
                == .proceed(["displayName": "Ada", "city": "Paris"]))
        #expect(run([modify, refuse]) == .refused("Fix it. Town: Not Paris"))
        #expect(run([.answered(status: 200, contentType: "application/json", body: Array("{}".utf8))]) == .failed)
    }
}
