// libFuzzer target for External ID's native authentication API (IdentityPlatform), linked by
// scripts/fuzz: a form body posted to one of its endpoints (the first byte picks which; the second,
// whether the demo app's client_id goes first). Properties: no crash or hang; every answer is a JSON
// object of bounded size with the API's statuses; and a flow the answer hands a continuation token for
// keeps only what the API bounds (the known challenge types and capabilities, an address of 256 bytes, a
// password of 256 UTF-16 code units, 4 KB of attributes), whatever the request carried.
import EntraCrypto
import EntraHTTP
import ExchangeKernel
import FakeEntraApp
import Foundation
@testable import IdentityPlatform
import LocatedJSON

let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try! SigningCredential.generate()),
                              clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)), options: IdentityOptions())
let application = FakeEntraApplication(service: service)
let endpoints = [
    "signup/v1.0/start", "signup/v1.0/challenge", "signup/v1.0/continue", "oauth2/v2.0/initiate", "oauth2/v2.0/challenge",
    "oauth2/v2.0/token", "oauth2/v2.0/introspect", "resetpassword/v1.0/start", "resetpassword/v1.0/challenge",
    "resetpassword/v1.0/continue", "resetpassword/v1.0/submit", "resetpassword/v1.0/poll_completion",
]
let demoApp = "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19"

@_cdecl("LLVMFuzzerTestOneInput")
public func nativeAuthFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let path = "/woodgrove.onmicrosoft.com/" + endpoints[Int(bytes[0]) % endpoints.count]
    var body = Array(bytes[2...])
    if bytes[1] & 1 == 1 { body = Array("client_id=\(demoApp)&".utf8) + body }
    var headers = HTTPHeaders()
    headers.set("Host", "woodgrove.ciamlogin.com")
    headers.set("Content-Type", "application/x-www-form-urlencoded")
    let response = application.responder.respond(to: HTTPRequest(method: "POST", target: path, headers: headers, body: body), context: ConnectionFacts())
    require([200, 400, 401, 403, 404, 405, 429].contains(response.status.code), "status \(response.status.code) from \(path)")
    require(response.body.count <= 16 * 1024, "an answer of \(response.body.count) bytes from \(path)")
    guard response.status.code != 404 else { return 0 }
    guard let answer = LocatedJSON.object(body: response.body) else {
        require(false, "\(path) answered something other than a JSON object")
        return 0
    }
    if let token = answer["continuation_token"]?.string, case .valid(let flow, _) = service.nativeAuthFlows.lookUp(token, now: service.clock.now()) {
        require(flow.challengeTypes.isSubset(of: NativeAuthRequest.knownChallengeTypes), "a flow kept challenge types \(flow.challengeTypes)")
        require(flow.capabilities.isSubset(of: NativeAuthRequest.knownCapabilities), "a flow kept capabilities \(flow.capabilities)")
        require(flow.username.utf8.count <= NativeAuthRequest.longestValue, "a flow kept a \(flow.username.utf8.count)-byte address")
        require((flow.password?.utf16.count ?? 0) <= 256, "a flow kept a password of \(flow.password?.utf16.count ?? 0) code units")
        require(flow.attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } <= NativeAuthRequest.longestAttributes, "a flow kept attributes over 4 KB")
    }
    return 0
}
