/// What a `--host` value will bind: the name resolved as the listener resolves it, so a rule about the
/// bound addresses (the control API needs a secret off loopback) judges addresses, not the spelling of
/// a name (`127.lan.example` may resolve anywhere).
package enum BindAddresses {
    /// The numeric addresses `host` binds, in the order the listener tries them.
    package static func resolve(_ host: String) throws(SocketError) -> [String] {
        try Socket.resolve(host: host, port: 0).map { Socket.describe(storage: $0.storage) }
    }

    /// The addresses among those `host` resolves to that another machine could reach; `resolve` is the
    /// listener's resolution unless a test gives its own.
    package static func nonLoopback(_ host: String, resolve: (String) throws(SocketError) -> [String] = resolve) throws(SocketError) -> (all: [String], reachable: [String]) {
        let all = try resolve(host)
        return (all, all.filter { !isLoopback($0) })
    }

    /// 127.0.0.0/8, ::1 and IPv4-mapped 127.0.0.0/8: addresses no other machine can reach.
    package static func isLoopback(_ address: String) -> Bool {
        let lowered = address.lowercased()
        return lowered == "::1" || lowered.hasPrefix("127.") || lowered.hasPrefix("::ffff:127.")
    }
}
