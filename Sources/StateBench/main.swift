// Not shipped: `scripts/bench-state` runs it. Measures what the platform's state costs — bytes per live
// refresh token and per journal entry — and whether a million live refresh tokens slow issuance, by
// driving the real token endpoint in-process (no sockets, so the figures are the state's alone).
import EntraCrypto
import EntraHTTP
import Foundation
import ExchangeKernel
import Journal
import IdentityPlatform
import LocatedJSON
import CMallocStats
import StateStore
import FakeEntraApp
import Scenarios
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

func allocatedBytes() -> Int { Int(MallocStats_allocatedBytes()) }

/// CPU time of this thread: the measure other processes on the machine disturb least.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments.dropFirst()
let liveTarget = arguments.first.flatMap(Int.init) ?? 1_000_000
let rounds = 6
let perRound = 150
let credential = try SigningCredential.generate()
let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)
let tokenPath = "/organizations/oauth2/v2.0/token"
let publicClient = "0d3b8b6c-7a4e-4f1d-9c2b-3e5f6a7b8c9d"

func service() -> IdentityService {
    IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: credential), clock: VirtualClock())
}

func request(_ form: [(String, String)]) -> HTTPRequest {
    let headers: HTTPHeaders = ["Host": "login.fakeentra.test", "Content-Type": "application/x-www-form-urlencoded"]
    return HTTPRequest(method: "POST", target: tokenPath, headers: headers, body: Array(FormParameters(form).encoded.utf8))
}

/// A password grant with offline_access: one signed access token, one id token, one stored refresh token.
let passwordGrant = request([
    ("grant_type", "password"), ("client_id", publicClient), ("username", "adele.vance@contoso.onmicrosoft.com"),
    ("password", Directory.demoPassword), ("scope", "openid profile offline_access https://graph.microsoft.com/User.Read"),
])

func issue(_ service: IdentityService, count: Int) {
    let platform = ExchangeStack([WorldRouter([EntraHandler(service: service)])], routes: RouteResolver([EntraRoutes()]))
    for _ in 0..<count {
        let response: HTTPResponse? = platform.respond(to: passwordGrant, context: context)
        precondition(response?.status.code == 200, "password grant failed: \(String(decoding: response?.body ?? [], as: UTF8.self))")
    }
}

// 1. Bytes per live refresh token, through the real issuance path.
let measured = service()
issue(measured, count: 50)
let sample = 3000
let beforeTokens = allocatedBytes()
issue(measured, count: sample)
let bytesPerToken = Double(allocatedBytes() - beforeTokens) / Double(sample)

// 2. A million live refresh tokens: records shaped like issued ones (fresh scope strings and arrays, as a
// grant builds them), under random 16-byte keys, straight into the store.
let full = service()
issue(full, count: 1)
let beforeFill = allocatedBytes()
precondition(full.seedRefreshTokens(count: liveTarget), "no refresh token to copy")
let fillBytes = allocatedBytes() - beforeFill
let liveCount = full.liveRefreshTokenCount

// 3. Issuance with 0 vs 1,000,000 live refresh tokens, interleaved so drift on a shared machine hits both.
let empty = service()
issue(empty, count: 20)
issue(full, count: 20)
var cpuEmpty = 0.0
var cpuFull = 0.0
for _ in 0..<rounds {
    var start = threadCPUSeconds()
    issue(empty, count: perRound)
    cpuEmpty += threadCPUSeconds() - start
    start = threadCPUSeconds()
    issue(full, count: perRound)
    cpuFull += threadCPUSeconds() - start
}
let issued = Double(rounds * perRound)
let rateEmpty = issued / cpuEmpty
let rateFull = issued / cpuFull

// 4. Bytes per journal entry: a full journal of token requests and answers.
let journal = RequestJournal()
let journaled = ExchangeStack([JournalRecorder(journal: journal, clock: VirtualClock()), WorldRouter([EntraHandler(service: service())])], routes: RouteResolver([EntraRoutes()]))
let clientCredentials = request([("grant_type", "client_credentials"), ("client_id", publicClient), ("client_secret", "bench-secret"), ("scope", "https://graph.microsoft.com/.default")])
for _ in 0..<50 { _ = journaled.respond(to: clientCredentials, context: context) }
journal.clear()
let beforeJournal = allocatedBytes()
for _ in 0..<journal.limits.maximumEntries { _ = journaled.respond(to: clientCredentials, context: context) }
let bytesPerEntry = Double(allocatedBytes() - beforeJournal) / Double(journal.limits.maximumEntries)

func milliseconds(_ duration: Duration) -> Double { Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15 }

// 5. `--state` with 20,000 users: one user's display name changed (what a Graph or control-API PATCH
// does), timed on the wall clock, and the bytes SQLite appended to its write-ahead log. Reference: the
// whole directory encoded, which is what each change wrote before the directory was kept as rows.
let stateFolder = NSTemporaryDirectory() + "fakeentra-bench-state-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: stateFolder) }
var crowded = Directory.embeddedDefault
for index in 0..<20_000 {
    var user = crowded.users[0]
    user.id = String(format: "00000000-0000-4000-8000-%012d", index)
    user.userPrincipalName = "user\(index)@contoso.onmicrosoft.com"
    crowded.users.append(user)
}
let persisted = IdentityService(directory: crowded, keys: SigningKeyRing(current: credential), clock: VirtualClock())
let stateStore = try SQLiteStateStore(directory: stateFolder)
try stateStore.attach(persisted)
try stateStore.checkpoint()
let wal = stateFolder + "/" + SQLiteStateStore.fileName + "-wal"
func walBytes() -> Int { (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0 }
var patchMilliseconds: [Double] = []
var patchBytes: [Int] = []
for round in 0..<41 {
    let before = walBytes()
    let start = ContinuousClock.now
    persisted.directory.withLock { $0.users[10_000 + round].displayName = "Renamed \(round)" }
    patchMilliseconds.append(milliseconds(ContinuousClock.now - start))
    let grown = walBytes() - before
    if grown > 0 { patchBytes.append(grown) }
}
let encodeStart = ContinuousClock.now
let wholeDirectory = try JSONEncoder().encode(crowded.users)
let encodeMilliseconds = milliseconds(ContinuousClock.now - encodeStart)
let patchMedian = patchMilliseconds.sorted()[patchMilliseconds.count / 2]
let bytesMedian = patchBytes.sorted().dropFirst(patchBytes.count / 2).first ?? 0

// 6. Bindings: a refresh-token grant of an unbound client (its world found by its handle, then past every
// binding's target) with 10,000 client bindings, against the same with none; and what one binding costs.
func refreshLatency(bindings count: Int) -> (median: Double, perBind: Double) {
    let application = FakeEntraApplication(service: service(), scenarios: (try? ScenarioLibrary.shipped(baseDirectory: .embeddedDefault)) ?? ScenarioLibrary())
    let bindStart = ContinuousClock.now
    for index in 0..<count {
        _ = try? application.engine.bind(scenario: "happy-path", to: .client(id: String(format: "00000000-0000-4000-9000-%012d", index)))
    }
    let perBind = count == 0 ? 0 : milliseconds(ContinuousClock.now - bindStart) / Double(count)
    precondition(application.engine.bindings.count == count, "bound \(application.engine.bindings.count) of \(count)")
    let first = application.responder.respond(to: passwordGrant, context: context)
    let token = LocatedJSON.object(body: first.body)?["refresh_token"]?.string ?? ""
    var samples: [Double] = []
    var current = token
    for _ in 0..<60 {
        let start = ContinuousClock.now
        let response = application.responder.respond(to: request([
            ("grant_type", "refresh_token"), ("client_id", publicClient), ("refresh_token", current),
            ("scope", "openid offline_access https://graph.microsoft.com/User.Read"),
        ]), context: context)
        samples.append(milliseconds(ContinuousClock.now - start))
        current = LocatedJSON.object(body: response.body)?["refresh_token"]?.string ?? current
    }
    return (samples.sorted()[samples.count / 2], perBind)
}
let unbound = refreshLatency(bindings: 0)
let crowdedBindings = refreshLatency(bindings: 10_000)

func figure(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }
let slowdown = (rateEmpty / rateFull - 1) * 100
print("""
| measure | value | reference | ratio / target |
| --- | --- | --- | --- |
| bytes per live refresh token (issued through /token, \(sample) tokens) | \(figure(bytesPerToken)) B | | |
| bytes per refresh token at \(liveCount) live (store filled directly) | \(figure(Double(fillBytes) / Double(liveTarget))) B | \(figure(Double(fillBytes) / 1_048_576)) MB in all | |
| bytes per journal entry (token request + answer, journal full: \(journal.limits.maximumEntries)) | \(figure(bytesPerEntry)) B | \(figure(bytesPerEntry * Double(journal.limits.maximumEntries) / 1_048_576, 1)) MB in all | |
| password grants per CPU-second, \(liveCount) live refresh tokens | \(figure(rateFull)) | 0 live: \(figure(rateEmpty)) | \(figure(rateFull / rateEmpty, 3)) (slowdown \(figure(slowdown, 1))%, target ≤ 10%) |
| refresh-token grant with 10,000 bindings (median of 60) | \(figure(crowdedBindings.median, 3)) ms | no binding: \(figure(unbound.median, 3)) ms | \(figure(crowdedBindings.median / unbound.median, 3)) (target ≤ 1.10; one binding made in \(figure(crowdedBindings.perBind, 3)) ms) |
| --state, 20,000 users: one user changed (median of 41) | \(figure(patchMedian, 2)) ms, \(bytesMedian) B written | whole directory encoded: \(figure(encodeMilliseconds, 1)) ms, \(wholeDirectory.count) B | \(figure(patchMedian / encodeMilliseconds, 3)) (target < 5 ms and < 64 KB) |
""")
