// libFuzzer target for what a browser or a capture puts in front of FakeEntra's safety rules, linked by
// scripts/fuzz: the Host header against the served names (421), Origin against the Host (403), and the
// one-pass personal-data scanners of `fakeentra replay`. Properties: no crash or hang; a Host is served
// whatever the case of its letters; and on ASCII text the scanners find exactly what the regular
// expressions they replaced find.
@testable import FakeEntraApp
import Foundation
@testable import Scenarios

let served = ServedHosts(names: ["localhost", "127.0.0.1", "::1", "login.microsoftonline.com", "*.b2clogin.com"], primary: "127.0.0.1")
let emailExpression = try! NSRegularExpression(pattern: "[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}")
let domainExpression = try! NSRegularExpression(pattern: "\\b[A-Za-z0-9-]+\\.onmicrosoft\\.com\\b")

func spans(_ expression: NSRegularExpression, _ text: String) -> [Range<Int>] {
    expression.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length)).map { $0.range.location..<($0.range.location + $0.range.length) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func originFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let host = String(text.prefix(200))
    let verdict = served.serves(host: host)
    require(served.serves(host: host.uppercased()) == verdict || !host.allSatisfy(\.isASCII), "the case of a Host changed whether it is served: \(host)")
    _ = CrossSiteGuard.isSameOrigin(text, host: host)
    _ = CrossSiteGuard.isSameOrigin("https://" + host, host: host)
    let found = PersonalDataSpans.emails(bytes)
    let domains = PersonalDataSpans.tenantDomains(bytes)
    for list in [found, domains] {
        require(zip(list, list.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound } && list.allSatisfy { $0.upperBound <= bytes.count })
    }
    if bytes.allSatisfy({ $0 < 0x80 }) {
        require(found == spans(emailExpression, text), "e-mail spans differ from the expression's: \(text)")
        require(domains == spans(domainExpression, text), "tenant name spans differ from the expression's: \(text)")
    }
    return 0
}
