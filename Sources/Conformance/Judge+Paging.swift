import ExchangeKernel
import FoundationGaps

/// A paged Graph collection read in one step (`listGraph`): its pages are the collection answers of the
/// step, each with its size and its `@odata.nextLink` as the receipt recorded them.
extension Judge {
    func pagesDecision(_ step: Int, _ judgement: Check.PagingJudgement) -> Decision {
        during(step) { reply, window in pagesDecision(step, judgement, reply: reply, window: window) }
    }

    private func pagesDecision(_ step: Int, _ judgement: Check.PagingJudgement, reply: StepOutcome, window: ClosedRange<Date>) -> Decision {
        let requests = exchanges.filter { window.contains($0.time) && ExchangeMatch.graph.matches($0) }
        let pages = requests.filter { $0.status == 200 && $0.answer.items != nil }
        guard !pages.isEmpty else {
            return (.failed, "no Graph collection page was answered during step \(step) (\(reply.step.rawValue))", requests, [reply])
        }
        let last = pages.first { $0.answer.nextLink == nil }
        switch judgement {
        case .followsEveryLink:
            if pages.count == 1, last != nil {
                return (.notTestable, "the collection came in one page, so paging was never exercised", pages, [reply])
            }
            for (index, page) in pages.enumerated() {
                guard let link = page.answer.nextLink else { continue }
                if !requests.contains(where: { $0.id > page.id && $0.requests(link) }) {
                    return (.failed, "the @odata.nextLink of page \(index + 1) was never requested: the app stopped before the last page", [page], [reply])
                }
            }
            guard last != nil else { return (.failed, "no page without an @odata.nextLink was reached", pages, [reply]) }
            return (.passed, "every @odata.nextLink was followed, \(pages.count) page(s) to the last", pages, [reply])
        case .stopsAtLastPage:
            var answered: [String: Exchange] = [:]
            for page in pages {
                if let earlier = answered[page.target] { return (.failed, "the same page was requested again after it was answered", [earlier, page], [reply]) }
                answered[page.target] = page
            }
            guard let last else { return (.notTestable, "the last page was never reached, so stopping there cannot be judged", pages, [reply]) }
            if let after = requests.first(where: { $0.id > last.id }) {
                return (.failed, "a Graph request followed the last page (the one without an @odata.nextLink)", [last, after], [reply])
            }
            return (.passed, "each of \(pages.count) page(s) requested once, nothing after the last", pages, [reply])
        case .reportsEveryItem:
            guard last != nil else { return (.notTestable, "the collection was not read to its last page, so its size is unknown", pages, [reply]) }
            let total = Dictionary(pages.map { ($0.target, $0.answer.items ?? 0) }, uniquingKeysWith: { first, _ in first }).values.reduce(0, +)
            guard reply.ok else { return (.failed, "the pages held \(total) items, but the app reported \(reply.summary)", pages, [reply]) }
            guard let count = reply.count else { return (.notTestable, "the reply has no count of the items collected", pages, [reply]) }
            if count != total { return (.failed, "the app reported \(count) items; the pages held \(total)", pages, [reply]) }
            return (.passed, "the app reported the \(total) items of the \(pages.count) page(s)", pages, [reply])
        }
    }
}

extension Exchange {
    /// The request's path and query, for telling pages apart: `/v1.0/me/events?$skip=5&$top=5`.
    var target: String {
        path.lowercased() + "?" + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// True when this request is the one `link` names: the same path and every query option of the link.
    func requests(_ link: String) -> Bool {
        guard let url = URLComponents(string: link), url.path.caseInsensitiveCompare(path) == .orderedSame else { return false }
        return (url.queryItems ?? []).allSatisfy { parameters[$0.name] == ($0.value ?? "") }
    }
}
