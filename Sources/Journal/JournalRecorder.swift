package import ExchangeKernel
package import EntraHTTP
import FoundationGaps

/// The layer that puts every exchange below it (Entra, B2C, Graph alike) in the journal, with its
/// route's kind and the receipt of what the platform did.
package struct JournalRecorder: ExchangeLayer {
    package let journal: RequestJournal
    package let clock: any TimeSource

    package init(journal: RequestJournal, clock: any TimeSource) {
        self.journal = journal
        self.clock = clock
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        let response = next(request, context)
        let receipt = context.receipt.current
        // Secrets named in either direction are remembered first, so the entry (and every later one)
        // redacts them wherever they appear — passwords and client secrets the control API sets included.
        SecretHarvest.learn(from: request, response: response, receipt: receipt, into: journal.secrets)
        // The control API (journal reads, health probes, scenario loads) is not itself journaled: the
        // journal shows what clients asked of the identity platform and Graph.
        switch context.route {
        case .control, .console: return response
        default: break
        }
        let elapsed = ContinuousClock.now - context.startedAt
        var kept = receipt.withoutSecrets
        // Whoever made the response (a handler, a scenario's scripted or replayed answer) set its headers.
        kept.answer.read(headers: response.headers)
        journal.record(RecordedExchange(
            time: clock.now(), method: request.method, path: request.rawPath, rawQuery: request.rawQuery,
            status: response.status.code, kind: context.route.journalKind,
            durationMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            requestHeaders: JournalEntry.keptHeaders(request.headers, names: JournalEntry.requestHeaderNames),
            responseHeaders: JournalEntry.keptHeaders(response.headers, names: JournalEntry.responseHeaderNames),
            requestBody: RecordedBody(request.body, contentType: request.headers["Content-Type"]),
            responseBody: RecordedBody(response.body, contentType: response.headers["Content-Type"]),
            receipt: kept
        ))
        return response
    }
}
