import EntraHTTP
import Foundation

// fakeentra-load: the benchmark's load driver. Native, so that it is not what limits the figures a
// Python client would (the server's work per request is what scripts/bench measures).
//
//   fakeentra-load --url http://127.0.0.1:PORT --flow authcode|refresh|request
//                  [--provider fakeentra|oidc-provider-mock] [--connections 4] [--seconds 5]
//                  [--method POST --target /path --body 'a=1']
//
// Prints one line: `completed=N seconds=S rate=R errors=E`; the first error goes to stderr. Exit 1 when
// nothing completed.

struct Options {
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var flow = "request"
    var provider = Provider.fakeentra
    var connections = 4
    var seconds = 5.0
    var method = "GET"
    var target = "/_fakeentra/health"
    var body = ""

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw FlowFailure("\(name) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--url":
                let url = try value(argument)
                guard url.hasPrefix("http://"), let colon = url.dropFirst(7).lastIndex(of: ":"),
                      let port = UInt16(url[url.index(after: colon)...].prefix { $0.isNumber }) else {
                    throw FlowFailure("--url must be http://HOST:PORT (plain HTTP on loopback)")
                }
                host = String(url.dropFirst(7)[..<colon])
                self.port = port
            case "--flow": flow = try value(argument)
            case "--provider":
                let name = try value(argument)
                guard let parsed = Provider(rawValue: name) else { throw FlowFailure("unknown provider \(name)") }
                provider = parsed
            case "--connections": connections = try max(1, Int(value(argument)) ?? 4)
            case "--seconds": seconds = try max(0.1, Double(value(argument)) ?? 5)
            case "--method": method = try value(argument)
            case "--target": target = try value(argument)
            case "--body": body = try value(argument)
            default: throw FlowFailure("unknown option \(argument)")
            }
        }
        guard port != 0 else { throw FlowFailure("--url is required") }
    }

    func makeFlow() throws -> any LoadFlow {
        switch flow {
        case "authcode": return AuthorizationCodeFlow(provider: provider)
        case "refresh": return RefreshTokenFlow(provider: provider)
        case "request": return RepeatedRequest(method: method, target: target, body: Array(body.utf8))
        default: throw FlowFailure("unknown flow \(flow) (authcode, refresh, request)")
        }
    }
}

/// Counts shared by the connection threads.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var completed = 0
    private var errors = 0
    private(set) var firstError: String?

    func add(completed: Int, errors: Int, error: String?) {
        lock.lock()
        defer { lock.unlock() }
        self.completed += completed
        self.errors += errors
        if firstError == nil { firstError = error }
    }

    var totals: (completed: Int, errors: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (completed, errors)
    }
}

func run(_ options: Options) throws -> Int32 {
    _ = try options.makeFlow()   // reject a bad --flow before starting threads
    let tally = Tally()
    let finished = DispatchSemaphore(value: 0)
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let deadline = LockedValue(ContinuousClock.now)
    for _ in 0..<options.connections {
        let thread = Thread {
            var completed = 0, errors = 0
            var firstError: String?
            let connection = ClientConnection(host: options.host, port: options.port)
            var flow = try! options.makeFlow()
            // Set-up that is not measured: the refresh benchmark signs in once per connection first.
            if var refresh = flow as? RefreshTokenFlow {
                do { try refresh.prepare(connection) } catch { errors += 1; firstError = "\(error)" }
                flow = refresh
            }
            ready.signal()
            start.wait()
            let end = deadline.value
            while ContinuousClock.now < end, errors < 100 {
                do {
                    try flow.iterate(connection)
                    completed += 1
                } catch {
                    errors += 1
                    if firstError == nil { firstError = "\(error)" }
                    connection.disconnect()
                }
            }
            tally.add(completed: completed, errors: errors, error: firstError)
            finished.signal()
        }
        thread.start()
    }
    for _ in 0..<options.connections { ready.wait() }
    let began = ContinuousClock.now
    deadline.value = began + .milliseconds(Int(options.seconds * 1000))
    for _ in 0..<options.connections { start.signal() }
    for _ in 0..<options.connections { finished.wait() }
    let elapsed = ContinuousClock.now - began
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let (completed, errors) = tally.totals
    print("completed=\(completed) seconds=\(String(format: "%.3f", seconds)) rate=\(String(format: "%.1f", Double(completed) / seconds)) errors=\(errors)")
    if let first = tally.firstError { FileHandle.standardError.write(Data("fakeentra-load: \(first)\n".utf8)) }
    return completed > 0 ? 0 : 1
}

final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

do {
    exit(try run(Options(Array(CommandLine.arguments.dropFirst()))))
} catch {
    FileHandle.standardError.write(Data("fakeentra-load: \(error)\n".utf8))
    exit(2)
}
