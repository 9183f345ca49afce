import Testing
@testable import EntraCrypto

@Suite struct ServerNamesTests {
    @Test func normalisesAndAddsLocalNames() throws {
        let names = try ServerNames([" Login.MicrosoftOnline.com. ", "[::1]", "0:0::1", "*.B2CLogin.com", "login.microsoftonline.com"])
        #expect(names.subjectAlternativeNames == ["login.microsoftonline.com", "*.b2clogin.com", "localhost", "::1", "127.0.0.1"])
        #expect(names.constraintDNS == ["login.microsoftonline.com", "b2clogin.com", "localhost"])
    }

    @Test func nameConstraintsConfiguration() throws {
        let names = try ServerNames(["*.b2clogin.com"])
        #expect(names.nameConstraintsExtension == "critical,permitted;DNS:b2clogin.com,permitted;DNS:localhost,"
                + "permitted;IP:127.0.0.1/255.255.255.255,permitted;IP:::1/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
        #expect(names.subjectAltNameExtension == "DNS:*.b2clogin.com,DNS:localhost,IP:127.0.0.1,IP:::1")
    }

    @Test(arguments: [
        ("b2clogin.com", "b2clogin.com", true), ("x.b2clogin.com", "b2clogin.com", true), ("*.b2clogin.com", "b2clogin.com", true),
        ("notb2clogin.com", "b2clogin.com", false), ("b2clogin.com.evil", "b2clogin.com", false),
        ("x.b2clogin.com", ".b2clogin.com", true), ("b2clogin.com", ".b2clogin.com", false), ("LOCALHOST", "localhost", true),
    ])
    func dnsConstraintMatching(name: String, base: String, expected: Bool) {
        #expect(ServerNames.dnsName(name, isWithin: base) == expected)
    }

    @Test func coverageUsesDNSAndIPRanges() throws {
        let subtrees = PermittedSubtrees(critical: true, dns: ["b2clogin.com", "localhost"], ip: [
            .init(address: [127, 0, 0, 1], mask: [255, 255, 255, 255]),
            .init(address: [UInt8](repeating: 0, count: 15) + [1], mask: [UInt8](repeating: 255, count: 16)),
            .init(address: [10, 0, 0, 0], mask: [255, 0, 0, 0]),
        ])
        #expect(try ServerNames(["*.b2clogin.com", "a.b2clogin.com", "10.1.2.3"]).areCovered(by: subtrees))
        #expect(try !ServerNames(["example.com"]).areCovered(by: subtrees))
        #expect(try !ServerNames(["11.0.0.1"]).areCovered(by: subtrees))
    }
}
