import EntraServer
import Testing

/// `--host` is judged by the addresses it binds, not by how the name is spelled.
@Suite struct BindAddressesTests {
    @Test func aNameIsJudgedByWhatItResolvesTo() throws {
        let lookup: (String) throws(SocketError) -> [String] = { name in
            ["127.lan.example": ["10.1.2.3"], "both.example": ["127.0.0.1", "192.168.1.9"], "loop.example": ["127.0.0.1", "::1"]][name] ?? []
        }
        #expect(try BindAddresses.nonLoopback("127.lan.example", resolve: lookup).reachable == ["10.1.2.3"])
        #expect(try BindAddresses.nonLoopback("both.example", resolve: lookup).reachable == ["192.168.1.9"])
        #expect(try BindAddresses.nonLoopback("loop.example", resolve: lookup).reachable.isEmpty)
    }

    @Test func theListenersOwnResolution() throws {
        #expect(try BindAddresses.nonLoopback("localhost").reachable.isEmpty)
        #expect(try BindAddresses.nonLoopback("127.0.0.1").reachable.isEmpty)
        #expect(try BindAddresses.nonLoopback("0.0.0.0").reachable == ["0.0.0.0"])
        #expect(try BindAddresses.nonLoopback("::").reachable == ["::"])
        #expect(BindAddresses.isLoopback("::ffff:127.0.0.1") && !BindAddresses.isLoopback("::ffff:10.0.0.1"))
        #expect(throws: SocketError.self) { try BindAddresses.resolve("no.such.host.invalid") }
    }
}
