#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Conformance
import EntraCrypto
import EntraServer
import Dispatch
import FoundationGaps
import Synchronization

/// Where cases start and are judged: this process's own server, or a running one's control API.
protocol ConformanceHost: Sendable {
    var serverDescription: String { get }
    /// Where the server listens, for the relay's tunnels.
    var serverAddress: (host: String, port: Int) { get }
    var certificateAuthority: String { get }
    /// `mcpServer`: where the adapter's MCP server is to listen, for a case whose app calls one.
    func start(case id: String, mcpServer: String?) throws -> CaseStart
    /// The certificate rollover: the case's registration takes the start's next certificate.
    func rollCertificate(case id: String) throws
    func finish(case id: String, outcomes: [StepOutcome], stderrTail: String) throws -> CaseResult
}

/// Runs cases in parallel, one adapter process per case.
struct ConformanceRunner: Sendable {
    let host: any ConformanceHost
    let command: String
    /// `FAKEENTRA_BROWSER`, the same for every case (the case's user is in its environment).
    let browser: String
    let jobs: Int
    let scratch: String
    /// Carries the External ID cases' ciamlogin.com names to the server; nil when no such case runs.
    var relay: ConformanceRelay?

    /// Every case's result, in catalogue order; `progress` is told after each case.
    func run(_ cases: [ConformanceCase], progress: @escaping @Sendable (Int, Int, CaseResult) -> Void) -> [CaseResult] {
        let queue = Mutex<[ConformanceCase]>(cases.reversed())
        let results = Mutex<[String: CaseResult]>([:])
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, cases.count)) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while let next = queue.withLock({ $0.popLast() }) {
                    let result = runCase(next)
                    let done = results.withLock { stored in
                        stored[next.id] = result
                        return stored.count
                    }
                    progress(done, cases.count, result)
                }
            }
        }
        group.wait()
        let finished = results.withLock { $0 }
        return cases.compactMap { finished[$0.id] }
    }

    func runCase(_ conformanceCase: ConformanceCase) -> CaseResult {
        let started = Date()
        let start: CaseStart
        do {
            // The adapter hosts the case's MCP server on a port the suite picks, so that the server's URL,
            // its Application ID URI, is registered before the app signs in. Another process may take the
            // port before the adapter binds it; the adapter then fails to start and the case says so.
            let mcpServer = try conformanceCase.callsMCPServer ? "http://127.0.0.1:\(unusedLoopbackPort())/mcp" : nil
            start = try host.start(case: conformanceCase.id, mcpServer: mcpServer)
        } catch {
            return Self.unrunnable(conformanceCase, reason: "the case could not start: \(error)", started: started)
        }
        let certificatePath = (scratch).appendingPathComponent("\(conformanceCase.id).client.pem")
        if let certificate = start.credential?.certificate {
            do { try SecureFile.write(certificate, to: certificatePath, mode: 0o600) } catch {
                return Self.unrunnable(conformanceCase, reason: "the client certificate could not be written: \(error)", started: started)
            }
        }
        defer { try? FileManager.default.removeItem(atPath: certificatePath) }
        var environment = ProcessInfo.processInfo.environment.filter { !CaseStart.variableNames.contains($0.key) }
        environment.merge(start.environment(certificateAuthority: host.certificateAuthority, browser: browser, certificatePath: certificatePath)) { _, new in new }
        if ConformanceRelay.relays(authority: start.authority) {
            let problem = relay.map { $0.problem(reaching: start.authority) } ?? "no relay carries \(start.authority)"
            if let problem {
                _ = try? host.finish(case: conformanceCase.id, outcomes: [], stderrTail: "")
                return Self.unrunnable(conformanceCase, reason: problem, started: started)
            }
            environment = relay!.environment(environment)
        }
        let stderrPath = (scratch).appendingPathComponent("\(conformanceCase.id).stderr")
        let outcomes: [StepOutcome]
        var tail = ""
        var suiteFailure: String?
        do {
            let adapter = try AdapterProcess(command: command, environment: environment, stderrPath: stderrPath)
            outcomes = walk(start.journey, with: adapter) { answered in
                guard let credential = start.credential, credential.rolloverAfterStep == answered, let next = credential.nextCertificate else { return true }
                do {
                    try SecureFile.write(next, to: certificatePath, mode: 0o600)
                    try host.rollCertificate(case: conformanceCase.id)
                    return true
                } catch {
                    suiteFailure = "the certificate rollover after step \(answered) failed: \(error)"
                    return false
                }
            }
            adapter.terminate()
            tail = adapter.stderrTail()
        } catch {
            outcomes = start.journey.map { StepOutcome(id: $0.id, step: $0.step, observed: .adapterExited, detail: "\(error)", startedAt: nil, endedAt: nil) }
        }
        do {
            // Finished even when the suite failed its own part, so the case's binding is released.
            let result = try host.finish(case: conformanceCase.id, outcomes: outcomes, stderrTail: tail)
            return suiteFailure.map { Self.unrunnable(conformanceCase, reason: $0, started: started) } ?? result
        } catch {
            return Self.unrunnable(conformanceCase, reason: "the case could not be judged: \(error)", started: started)
        }
    }

    /// Sends each step and waits for its reply until the step's deadline; once a step got no reply
    /// the adapter is in an unknown state, so later steps are not sent. `afterReply` runs between a
    /// step's reply and the next step (the suite's own changes, such as a certificate rollover); when it
    /// fails, later steps are not sent either.
    func walk(_ journey: [JourneyStep], with adapter: AdapterProcess, afterReply: (Int) -> Bool = { _ in true }) -> [StepOutcome] {
        var outcomes: [StepOutcome] = []
        var broken = false
        for step in journey {
            let sentAt = Date()
            guard !broken else {
                outcomes.append(StepOutcome(id: step.id, step: step.step, observed: .notSent, startedAt: nil, endedAt: nil))
                continue
            }
            guard adapter.send(step.jsonLine) else {
                outcomes.append(StepOutcome(id: step.id, step: step.step, observed: .adapterExited, detail: "the adapter stopped reading its input", startedAt: sentAt, endedAt: Date()))
                broken = true
                continue
            }
            let deadline = sentAt.addingTimeInterval(step.budgetSeconds)
            switch adapter.readLine(before: deadline) {
            case .line(let line):
                let outcome = StepOutcome.parse(line: line, for: step, startedAt: sentAt, endedAt: Date())
                outcomes.append(outcome)
                if outcome.observed != .answered || !afterReply(step.id) { broken = true }
            case .deadline:
                outcomes.append(StepOutcome(id: step.id, step: step.step, observed: .deadlineExceeded,
                                            detail: "no reply within \(Int(step.deadlineSeconds)) s", startedAt: sentAt, endedAt: Date()))
                broken = true
            case .closed:
                outcomes.append(StepOutcome(id: step.id, step: step.step, observed: .adapterExited, detail: "the adapter exited (see its stderr)", startedAt: sentAt, endedAt: Date()))
                broken = true
            }
        }
        return outcomes
    }

    static func unrunnable(_ conformanceCase: ConformanceCase, reason: String, started: Date) -> CaseResult {
        CaseResult(caseID: conformanceCase.id, title: conformanceCase.title, area: conformanceCase.area, level: conformanceCase.level,
                   verdict: .notTestable, reason: reason, checks: [], outcomes: [], exchanges: [],
                   description: conformanceCase.service, citations: conformanceCase.citations, durationSeconds: Date().timeIntervalSince(started))
    }
}
