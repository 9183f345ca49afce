package import FoundationGaps
import Synchronization

/// Where a world's state goes when it must outlive the process (`serve --state DIR`). The platform
/// encodes records itself; a persistence only keeps rows, each change durably and atomically.
package protocol StatePersistence: AnyObject, Sendable {
    /// A record was stored or replaced.
    func upsert(store: String, key: String, value: [UInt8], forgetAt: Date)
    /// A record left (used, expired, evicted, removed).
    func delete(store: String, key: String)
    /// The whole state was reset.
    func deleteAll()
    /// Users, apps or consents changed: these rows, in one transaction.
    func saveDirectory(_ rows: [DirectoryRow])
}

/// A row as a persistence hands it back on start.
package struct PersistedRecord: Sendable {
    package var store: String
    package var key: String
    package var value: [UInt8]

    package init(store: String, key: String, value: [UInt8]) {
        self.store = store
        self.key = key
        self.value = value
    }
}

/// The stores, by the names rows carry.
enum PersistedStore {
    static let codes = "codes"
    static let refreshTokens = "refresh_tokens"
    static let sessions = "sessions"
    static let deviceCodes = "device_codes"
    static let userCodes = "user_codes"
    static let pendingAuthorizations = "pending_authorizations"
}

extension HandleDigest {
    /// 32 hexadecimal digits: how the digest is written as a row key.
    var hex: String { String(format: "%016llx%016llx", high, low) }

    init?(hex: String) {
        guard hex.utf8.count == 32, let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else { return nil }
        self.init(high: high, low: low)
    }
}

extension ExpiringStore where Value: Codable {
    /// Sends every later change of this store to `persistence` under `name`.
    mutating func persist(as name: String, to persistence: any StatePersistence, key describe: @escaping @Sendable (Key) -> String) {
        observer = { key, value in
            if let value, let bytes = try? JSONEncoder().encode(value) {
                persistence.upsert(store: name, key: describe(key), value: Array(bytes), forgetAt: value.forgetAt)
            } else {
                persistence.delete(store: name, key: describe(key))
            }
        }
    }

    /// Puts a persisted record back without writing it again; false if its key or value does not decode.
    mutating func restore(_ record: PersistedRecord, key: Key?) -> Bool {
        guard let key, let value = try? JSONDecoder().decode(Value.self, from: Data(record.value)) else { return false }
        let saved = observer
        observer = nil
        self[key] = value
        observer = saved
        return true
    }
}

extension PlatformState {
    /// Loads persisted records, then sends every later change to `persistence`. Returns the records it
    /// could not read (a key or value this version does not decode), which the caller must not ignore.
    @discardableResult
    package mutating func attach(_ persistence: any StatePersistence, restoring records: [PersistedRecord]) -> [PersistedRecord] {
        var unreadable: [PersistedRecord] = []
        for record in records {
            let restored = switch record.store {
            case PersistedStore.codes: authorizationCodes.restore(record, key: HandleDigest(hex: record.key))
            case PersistedStore.refreshTokens: refreshTokens.restore(record, key: HandleDigest(hex: record.key))
            // A session kept by its cookie (an earlier version's file) is not restored: its row is deleted
            // below, and its browser signs in again.
            case PersistedStore.sessions: BrowserSession.isDigestID(record.key) ? sessions.restore(record, key: record.key) : true
            case PersistedStore.deviceCodes: deviceCodes.restore(record, key: HandleDigest(hex: record.key))
            case PersistedStore.userCodes: userCodes.restore(record, key: record.key)
            case PersistedStore.pendingAuthorizations: pendingAuthorizations.restore(record, key: record.key)
            default: false
            }
            if !restored { unreadable.append(record) }
        }
        self.persistence = persistence
        for record in records where record.store == PersistedStore.sessions && !BrowserSession.isDigestID(record.key) {
            persistence.delete(store: PersistedStore.sessions, key: record.key)
        }
        authorizationCodes.persist(as: PersistedStore.codes, to: persistence) { $0.hex }
        refreshTokens.persist(as: PersistedStore.refreshTokens, to: persistence) { $0.hex }
        sessions.persist(as: PersistedStore.sessions, to: persistence) { $0 }
        deviceCodes.persist(as: PersistedStore.deviceCodes, to: persistence) { $0.hex }
        userCodes.persist(as: PersistedStore.userCodes, to: persistence) { $0 }
        pendingAuthorizations.persist(as: PersistedStore.pendingAuthorizations, to: persistence) { $0 }
        return unreadable
    }

    /// The start state (`POST /_fakeentra/reset`): empty stores with the same limits, still persisted.
    package func emptied() -> PlatformState {
        var fresh = PlatformState(limits: limits)
        if let persistence {
            persistence.deleteAll()
            fresh.attach(persistence, restoring: [])
        }
        return fresh
    }
}

/// How versions before row-level writes kept the directory: one snapshot, still read to migrate.
struct DirectorySnapshot: Codable {
    var users: [DirectoryUser]
    var applications: [Application]
    var consents: [ConsentGrant]
}

extension Directory {
    /// Replaces users, apps and consents with a persisted snapshot; unchanged, and why, if it does not decode.
    package mutating func restore(persistedSnapshot bytes: [UInt8]) -> Result<Void, PersistedDecodingProblem> {
        do {
            let snapshot = try JSONDecoder().decode(DirectorySnapshot.self, from: Data(bytes))
            users = snapshot.users
            applications = snapshot.applications
            consents = snapshot.consents
            return .success(())
        } catch {
            return .failure(PersistedDecodingProblem(error))
        }
    }
}

/// Why a persisted value does not decode, in one line: what was expected and where.
package struct PersistedDecodingProblem: Error, CustomStringConvertible {
    package let description: String

    init(description: String) { self.description = description }

    init(_ error: any Error, row: String? = nil) {
        let prefix = row.map { "row \($0): " } ?? ""
        guard let decoding = error as? DecodingError else {
            description = prefix + "\(error)"
            return
        }
        let (context, what): (DecodingError.Context, String) = switch decoding {
        case .dataCorrupted(let context): (context, "")
        case .keyNotFound(let key, let context): (context, "no \"\(key.stringValue)\": ")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): (context, "")
        @unknown default: (DecodingError.Context(codingPath: [], debugDescription: "\(decoding)"), "")
        }
        let place = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        let underlying = context.underlyingError.map { " " + $0.localizedDescription } ?? ""
        description = prefix + what + context.debugDescription + underlying + (place.isEmpty ? "" : " at \(place)")
    }
}

/// The directory behind its lock. With a persistence attached, every change made under the lock is saved
/// before the lock is released, so the next reader and the disk agree.
package final class DirectoryCell: Sendable {
    private let cell: Mutex<(directory: Directory, persistence: (any StatePersistence)?)>

    package init(_ directory: Directory) { cell = Mutex((directory, nil)) }

    package func attach(_ persistence: any StatePersistence) {
        cell.withLock { $0.persistence = persistence }
    }

    /// A snapshot for one request's reads.
    package var current: Directory { cell.withLock { $0.directory } }

    package func withLock<Result: Sendable, Failure: Error>(_ body: (inout Directory) throws(Failure) -> Result) throws(Failure) -> Result {
        try cell.withLock { state throws(Failure) -> Result in
            guard let persistence = state.persistence else { return try body(&state.directory) }
            let before = state.directory
            let result = try body(&state.directory)
            // Unchanged arrays share their storage, so this is O(1) unless something changed.
            let rows = state.directory.rowChanges(since: before)
            if !rows.isEmpty { persistence.saveDirectory(rows) }
            return result
        }
    }
}
