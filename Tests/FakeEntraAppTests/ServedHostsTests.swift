@testable import Journal
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import FakeEntraApp

/// A Host that is none of the served names never becomes an issuer.
@Suite struct ServedHostsTests {
    static let hosts = ServedHosts(names: ["localhost", "127.0.0.1", "::1", "login.microsoftonline.com", "*.b2clogin.com"], primary: "127.0.0.1")
    static let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443)

    @Test(arguments: ["localhost:8443", "127.0.0.1", "[::1]:8443", "LOGIN.microsoftonline.com", "login.microsoftonline.com.:443",
                      "fabrikamb2c.b2clogin.com", "contoso.b2clogin.com:8443", "\tLocalHost.", "[::1]", "::1", "my-tenant2.b2clogin.com", "Fabrikam-2.B2CLogin.COM:443"])
    func servedNamesAreKept(host: String) {
        #expect(Self.hosts.serves(host: host))
    }

    @Test(arguments: ["evil.example", "evil.example:8443", "b2clogin.com", "a.b.b2clogin.com", "login.microsoftonline.com.evil.example",
                      "[::2]:8443", "127.0.0.2", "", "127.0.0.1@evil.example",
                      "l\u{043E}calhost", "\u{FF4C}ocalhost", "[::1", ":8443", "*.b2clogin.com", "localhost:8443:1",
                      // Accepted before the byte rewrite: a port that is no number, text after the brackets, spaces
                      // inside the name, a label that is no DNS label, a Kelvin sign lower-casing to `k`.
                      "localhost:evil", "localhost:", "[::1].evil.example", "[::1]@evil", "[ ::1 ]:8443", " localhost :8443",
                      "x_y.b2clogin.com", "\u{212A}ontoso.b2clogin.com"])
    func otherNamesAreNotServed(host: String) {
        #expect(!Self.hosts.serves(host: host))
    }

    /// Configured names are read as a Host value is: lower-cased, without brackets, port or trailing dot.
    @Test func configuredNamesInAnyCaseServeTheirHosts() {
        let hosts = ServedHosts(names: ["Login.Contoso.COM.", "[::1]", "*.B2CLogin.com"], primary: "LocalHost")
        #expect(hosts.names == ["login.contoso.com", "::1", "*.b2clogin.com"])
        #expect(hosts.primary == "localhost")
        for host in ["login.contoso.com", "LOGIN.contoso.com:8443", "[::1]:8443", "Tenant.b2clogin.COM"] { #expect(hosts.serves(host: host), "\(host)") }
        for host in ["contoso.com", "login.contoso.com.evil", "a.b.b2clogin.com"] { #expect(!hosts.serves(host: host), "\(host)") }
    }

    @Test func theIssuerOfMetadataAndTokensIsAServedName() throws {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate()))
        let app = FakeEntraApplication(service: service, servedHosts: Self.hosts)
        func issuer(host: String) throws -> String? {
            let request = HTTPRequest(method: "GET", target: "/common/v2.0/.well-known/openid-configuration", headers: ["Host": host])
            let response = app.responder.respond(to: request, context: Self.context)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return object?["issuer"] as? String
        }
        // A name it does not serve is refused (DNS rebinding): 421, never an issuer.
        let rebound = app.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/console", headers: ["Host": "evil.example:8443"]), context: Self.context)
        #expect(rebound.status.code == 421 && rebound.bodyText.contains("--hostname"))
        #expect(try issuer(host: "login.microsoftonline.com")?.hasPrefix("https://login.microsoftonline.com/") == true)
        // Refused before anything answers it: not journaled either.
        #expect(!app.journal.entries().contains { $0.requestHeaders.contains { $0.1 == "evil.example:8443" } })
    }
}
