import FoundationGaps
package import LocatedJSON

/// Expected failures: `{"version": 1, "expectedFailures": [{"case": "graph.forbidden-403", "reason": "…"}]}`.
/// A listed case that FAILED (or WARNED) is not counted against the run; a listed case that now
/// passes fails the run until its entry is removed, so baselines cannot rot.
package struct Baseline: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var caseID: String
        package var reason: String
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    /// Every problem at once, as `file:line:column: message`.
    package static func parse(_ bytes: [UInt8], file: String) -> Result<Baseline, JSONProblems> {
        let document: JSONValue
        do {
            document = try LocatedJSON.parse(bytes, file: file)
        } catch {
            return .failure(error)
        }
        var problems: [JSONProblem] = []
        func problem(_ message: String, at value: JSONValue, _ path: String) {
            problems.append(JSONProblem(file: file, location: value.location, path: path, message: message))
        }
        guard document.members != nil else {
            problem("a baseline is an object {\"version\": 1, \"expectedFailures\": [...]}", at: document, "")
            return .failure(JSONProblems(problems))
        }
        for member in document.members ?? [] where !["version", "expectedFailures", "$schema"].contains(member.key) {
            problem("unknown member \"\(member.key)\" (expected version, expectedFailures)", at: member.value, "/\(member.key)")
        }
        if let version = document["version"], version.number?.double != 1 {
            problem("version must be 1", at: version, "/version")
        }
        var entries: [Entry] = []
        let list = document["expectedFailures"]
        if list == nil { problem("missing \"expectedFailures\"", at: document, "") }
        for (index, item) in (list?.array ?? []).enumerated() {
            let path = "/expectedFailures/\(index)"
            guard let caseID = item["case"]?.string, !caseID.isEmpty else {
                problem("each entry needs \"case\" (a case id)", at: item, path)
                continue
            }
            guard let reason = item["reason"]?.string, !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                problem("entry for \(caseID) needs a \"reason\"", at: item, path)
                continue
            }
            if Catalogue.named(caseID) == nil {
                problem("no conformance case \"\(caseID)\"", at: item["case"]!, path + "/case")
            } else if entries.contains(where: { $0.caseID == caseID }) {
                problem("\(caseID) is listed twice", at: item["case"]!, path + "/case")
            }
            entries.append(Entry(caseID: caseID, reason: reason))
        }
        if let list, list.array == nil { problem("\"expectedFailures\" must be an array", at: list, "/expectedFailures") }
        return problems.isEmpty ? .success(Baseline(entries: entries)) : .failure(JSONProblems(problems))
    }

    /// Marks the listed cases: expected failures, or entries that no longer fail. Cases that were not
    /// decided (SKIPPED, NOT_TESTABLE) or not run leave their entry alone: nothing proves it stale.
    package func apply(to results: [CaseResult]) -> [CaseResult] {
        results.map { result in
            guard let entry = entries.first(where: { $0.caseID == result.caseID }) else { return result }
            var marked = result
            switch result.verdict {
            case .failed, .warning: marked.baseline = BaselineNote(status: .expectedFailure, reason: entry.reason)
            case .passed: marked.baseline = BaselineNote(status: .noLongerFails, reason: entry.reason)
            case .skipped, .notTestable: break
            }
            return marked
        }
    }
}
