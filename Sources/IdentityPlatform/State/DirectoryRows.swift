import FoundationGaps

/// One row of the directory as `--state` keeps it: a user, an app or a consent, by its key. A change of
/// the directory is written as the rows it changed (a PATCH of one user writes one row), not as the
/// whole directory again.
package struct DirectoryRow: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable { case user, application, consent }

    package var kind: Kind
    package var key: String
    /// The row's JSON; nil when the row left the directory.
    package var value: [UInt8]?

    package init(kind: Kind, key: String, value: [UInt8]?) {
        self.kind = kind
        self.key = key
        self.value = value
    }
}

extension Directory {
    /// Every row, in directory order: what a first save or a migration writes.
    package var persistedRows: [DirectoryRow] {
        Self.rowChanges(users: ([], users), applications: ([], applications), consents: ([], consents))
    }

    /// The rows that differ between `before` and `self`: changed or added ones with their value, removed
    /// ones without. Unchanged arrays share their storage, so a change of one kind costs nothing for the
    /// others; within a kind, elements are compared in place and looked up by key only where the order
    /// differs (an insertion or a removal).
    package func rowChanges(since before: Directory) -> [DirectoryRow] {
        Self.rowChanges(users: (before.users, users), applications: (before.applications, applications), consents: (before.consents, consents))
    }

    /// Replaces users, apps and consents with persisted rows (in the order given); unchanged, and why,
    /// if one does not decode.
    package mutating func restore(rows: [PersistedRecord]) -> Result<Void, PersistedDecodingProblem> {
        var restored: (users: [DirectoryUser], applications: [Application], consents: [ConsentGrant]) = ([], [], [])
        let decoder = JSONDecoder()
        for row in rows {
            do {
                switch DirectoryRow.Kind(rawValue: row.store) {
                case .user: restored.users.append(try decoder.decode(DirectoryUser.self, from: Data(row.value)))
                case .application: restored.applications.append(try decoder.decode(Application.self, from: Data(row.value)))
                case .consent: restored.consents.append(try decoder.decode(ConsentGrant.self, from: Data(row.value)))
                case nil: return .failure(PersistedDecodingProblem(description: "a row of kind \"\(row.store)\", which this version does not keep"))
                }
            } catch {
                return .failure(PersistedDecodingProblem(error, row: "\(row.store) \(row.key)"))
            }
        }
        (users, applications, consents) = restored
        return .success(())
    }

    private static func rowChanges(users: ([DirectoryUser], [DirectoryUser]), applications: ([Application], [Application]),
                                   consents: ([ConsentGrant], [ConsentGrant])) -> [DirectoryRow] {
        changes(.user, users.0, users.1, key: \.id) + changes(.application, applications.0, applications.1, key: \.clientID)
            + changes(.consent, consents.0, consents.1, key: \.rowKey)
    }

    private static func changes<Element: Encodable & Equatable>(_ kind: DirectoryRow.Kind, _ before: [Element], _ after: [Element],
                                                               key: (Element) -> String) -> [DirectoryRow] {
        if before == after { return [] }
        let encoder = JSONEncoder()
        func row(_ element: Element) -> DirectoryRow {
            DirectoryRow(kind: kind, key: key(element), value: (try? encoder.encode(element)).map { Array($0) } ?? [])
        }
        var rows: [DirectoryRow] = []
        // In place while the keys line up (an edit), by key from the first place they do not.
        var index = 0
        while index < before.count, index < after.count, key(before[index]) == key(after[index]) {
            if before[index] != after[index] { rows.append(row(after[index])) }
            index += 1
        }
        guard index < before.count || index < after.count else { return rows }
        var remaining = Dictionary(before[index...].map { (key($0), $0) }, uniquingKeysWith: { _, last in last })
        for element in after[index...] {
            let name = key(element)
            if let previous = remaining.removeValue(forKey: name), previous == element { continue }
            rows.append(row(element))
        }
        rows += remaining.keys.sorted().map { DirectoryRow(kind: kind, key: $0, value: nil) }
        return rows
    }
}

extension ConsentGrant {
    /// A consent is one per app, resource, user (or the tenant's admin) and tenant.
    var rowKey: String { [clientID.lowercased(), resourceAppID, userID ?? "*", tenantID.lowercased()].joined(separator: "|") }
}
