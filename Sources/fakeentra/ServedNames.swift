#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EntraCrypto
import FakeEntraApp

/// The names `serve` answers as: the certificate's (localhost, 127.0.0.1, ::1 and each `--hostname`) and
/// the bound address — for a wildcard listener (0.0.0.0, ::) every address of the machine's interfaces.
enum ServedNames {
    static func hosts(listeningOn host: String, hostnames: [String]) -> ServedHosts {
        var names = LocalServerNames.alwaysIncluded + hostnames + [host]
        if host == "0.0.0.0" || host == "::" { names += interfaceAddresses() }
        let primary = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        return ServedHosts(names: names, primary: primary)
    }

    /// Numeric IPv4 and IPv6 addresses of every interface (getifaddrs).
    static func interfaceAddresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var cursor = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            // Link-local IPv6 comes as fe80::1%eth0; a Host header cannot carry the zone.
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            addresses.append(String(numeric.prefix { $0 != "%" }))
        }
        return addresses
    }
}
