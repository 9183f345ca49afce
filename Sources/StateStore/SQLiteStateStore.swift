#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ExchangeKernel
import FoundationGaps
package import IdentityPlatform
import Synchronization

/// `serve --state DIR`: the platform's state in one SQLite database, `DIR/fakeentra.sqlite3`. WAL mode,
/// and every change is its own transaction, committed before the request that made it is answered: a
/// `kill -9` loses at most the request in flight and never leaves a half-written store. (`synchronous =
/// NORMAL`: a committed transaction survives the process dying; only a power cut can lose the last few.)
/// A write that cannot be made is reported to the service's `StateDurability`, never only logged. The
/// directory is kept as rows (`directory_rows`: one per user, app and consent, in directory order by
/// `sequence`), so a change writes the rows it changed, in one transaction.
package final class SQLiteStateStore: Sendable {
    package static let fileName = "fakeentra.sqlite3"
    /// 2: the directory as rows. A file of schema 1 (the directory as one snapshot) is migrated on attach.
    static let schemaVersion = "2"

    private let database: Mutex<SQLiteDatabase>
    package let path: String

    /// The file's identity when it was opened: a write finds out that it was deleted or replaced.
    private let identity: FileIdentity

    /// Opens (or creates) `DIR/fakeentra.sqlite3`; `reset` removes what a previous server kept first.
    /// The caller holds the folder's `StateDirectoryLock`.
    package init(directory: String, reset: Bool = false) throws(StateStoreError) {
        path = (directory).appendingPathComponent(Self.fileName)
        // Sessions, refresh tokens and users' passwords live here: owner-only, like the signing key.
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if reset {
            for suffix in ["", "-wal", "-shm"] where unlink(path + suffix) != 0 && errno != ENOENT {
                throw .cannotOpen(path: path + suffix, reason: String(cString: strerror(errno)))
            }
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("""
                PRAGMA journal_mode = WAL;
                PRAGMA synchronous = NORMAL;
                CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS records (
                    world TEXT NOT NULL, store TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, forget_at REAL NOT NULL,
                    PRIMARY KEY (world, store, key)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS directories (world TEXT PRIMARY KEY, snapshot BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS directory_rows (
                    world TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, sequence INTEGER NOT NULL, value BLOB NOT NULL,
                    PRIMARY KEY (world, kind, key)) WITHOUT ROWID;
                INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', '\(Self.schemaVersion)');
                """)
            var version = try database.run("SELECT value FROM meta WHERE name = 'schema'", columns: 1).first?.first.map { String(decoding: $0, as: UTF8.self) }
            if version == "1" {
                // Its snapshots are read by attach, which writes them as rows.
                try database.run("UPDATE meta SET value = ? WHERE name = 'schema'", [.text(Self.schemaVersion)])
                version = Self.schemaVersion
            }
            guard version == Self.schemaVersion else {
                throw StateStoreError.unreadable(path: path, what: "the file", reason: "written by another version of fakeentra, schema \(version ?? "?")")
            }
            self.database = Mutex(database)
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw .unreadable(path: path, what: "the database", reason: "\(error)")
        }
        guard let identity = FileIdentity(path: path) else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        self.identity = identity
    }

    /// Loads `world`'s persisted directory and records into `service`, forgetting those already due, and
    /// from then on writes every change of it here. A directory or record that does not decode stops
    /// here, before anything is written: starting afresh would overwrite what the user kept.
    ///
    /// `reconciling`: the service's directory came from this configuration file, which is the truth for
    /// what it names (`DirectoryReconciliation`); what the saved directory loses to it is returned, for
    /// the server to say at start-up. Without a file, the saved directory is served as it was kept.
    @discardableResult
    package func attach(_ service: IdentityService, world: String = "default", reconciling file: String? = nil) throws(StateStoreError) -> [DirectoryReconciliation.Note] {
        let persistence = WorldPersistence(store: self, world: world, durability: service.durability)
        let now = service.clock.now()
        let digestsName = "file-digests:" + world
        let (snapshot, directoryRows, rows, lastSequence, earlierDigests): ([UInt8]?, [PersistedRecord], [PersistedRecord], Int64, [UInt8]?)
        do {
            (snapshot, directoryRows, rows, lastSequence, earlierDigests) = try withDatabase { database throws(SQLiteError) in
                try database.run("DELETE FROM records WHERE world = ? AND forget_at <= ?", [.text(world), .real(now.timeIntervalSinceReferenceDate)])
                let snapshot = try database.run("SELECT snapshot FROM directories WHERE world = ?", [.text(world)], columns: 1).first?.first
                let directoryRows = try database.run("SELECT kind, key, value, sequence FROM directory_rows WHERE world = ? ORDER BY sequence", [.text(world)], columns: 4)
                let rows = try database.run("SELECT store, key, value FROM records WHERE world = ? ORDER BY forget_at", [.text(world)], columns: 3).map {
                    PersistedRecord(store: String(decoding: $0[0], as: UTF8.self), key: String(decoding: $0[1], as: UTF8.self), value: $0[2])
                }
                let digests = try database.run("SELECT value FROM meta WHERE name = ?", [.text(digestsName)], columns: 1).first?.first
                let last = directoryRows.last.flatMap { Int64(String(decoding: $0[3], as: UTF8.self)) } ?? 0
                return (snapshot, directoryRows.map { PersistedRecord(store: String(decoding: $0[0], as: UTF8.self), key: String(decoding: $0[1], as: UTF8.self), value: $0[2]) },
                        rows, last, digests)
            }
        } catch {
            throw .unreadable(path: path, what: "the database", reason: "\(error)")
        }
        persistence.nextSequence.withLock { $0 = lastSequence + 1 }
        let described = service.currentDirectory
        var saved: Directory?
        if !directoryRows.isEmpty {
            var restored = described
            if case .failure(let problem) = restored.restore(rows: directoryRows) {
                throw .unreadable(path: path, what: "the saved directory of world \"\(world)\" (\(directoryRows.count) rows)", reason: problem.description)
            }
            saved = restored
        } else if let snapshot {
            var restored = described
            if case .failure(let problem) = restored.restore(persistedSnapshot: snapshot) {
                throw .unreadable(path: path, what: "the saved directory of world \"\(world)\" (\(snapshot.count) bytes)", reason: problem.description)
            }
            saved = restored
        }
        var notes: [DirectoryReconciliation.Note] = []
        var serving = saved ?? described
        var fileDigests: DirectoryReconciliation.FileDigests?
        if file != nil {
            let earlier = earlierDigests.flatMap { try? JSONDecoder().decode(DirectoryReconciliation.FileDigests.self, from: Data($0)) }
            let reconciled = DirectoryReconciliation.reconcile(file: described, saved: saved ?? described, earlier: earlier)
            (serving, notes, fileDigests) = (reconciled.directory, reconciled.notes, reconciled.digests)
        }
        service.directory.withLock { $0 = serving }
        let unreadable = service.attach(persistence, restoring: rows)
        if let first = unreadable.first {
            throw .unreadable(path: path, what: "\(unreadable.count) saved record\(unreadable.count == 1 ? "" : "s") of world \"\(world)\" (first: \(first.store) \(first.key))", reason: "not a record this version reads")
        }
        service.directory.attach(persistence)
        if directoryRows.isEmpty {
            // A first start, or a snapshot of an earlier version: the whole directory as rows, once.
            persistence.saveDirectory(serving.persistedRows, replacingSnapshot: snapshot != nil)
        } else if let saved {
            persistence.saveDirectory(serving.rowChanges(since: saved))
        }
        if let fileDigests {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let value = (try? encoder.encode(fileDigests)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            persistence.saveMeta(name: digestsName, value: value)
        }
        return notes
    }

    /// Copies the write-ahead log into the database and empties it (SQLite does this by itself every
    /// thousand pages); a measurement of what one change appends to the log starts from here.
    package func checkpoint() throws(SQLiteError) {
        try withDatabase { database throws(SQLiteError) in try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Runs `body` with the connection, alone.
    @discardableResult
    func withDatabase<Result: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try database.withLock { database throws(SQLiteError) in try body(database) }
    }

    /// Makes one write, or says why it cannot be made durable: SQLite's error (disk full, read-only), or
    /// the file deleted or replaced under the server (SQLite would write on into the unlinked file, and
    /// a restart would find none of it).
    func write(_ sql: String, _ parameters: [SQLiteDatabase.Value]) -> String? {
        write { database throws(SQLiteError) in try database.run(sql, parameters) }
    }

    /// Makes the statements `body` runs, in one transaction, or says why they cannot be made durable.
    func write(_ body: (SQLiteDatabase) throws(SQLiteError) -> Void) -> String? {
        do {
            return try withDatabase { database throws(SQLiteError) -> String? in
                guard FileIdentity(path: path) == identity else {
                    return "\(path) was deleted or replaced while the server ran; what it is answered from now on is not kept"
                }
                try database.transaction { () throws(SQLiteError) in try body(database) }
                return nil
            }
        } catch {
            return "\(path): \(error)"
        }
    }
}

/// A file's device and inode: the same path naming another file (or none) is another identity.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// One world's rows in the store.
final class WorldPersistence: StatePersistence {
    let store: SQLiteStateStore
    let world: String
    let durability: StateDurability
    /// The `sequence` the next new directory row gets: rows come back in the order they were added.
    let nextSequence = Mutex<Int64>(1)

    init(store: SQLiteStateStore, world: String, durability: StateDurability) {
        self.store = store
        self.world = world
        self.durability = durability
    }

    /// A write that cannot be made is counted (the request that caused it is answered 503) and logged.
    private func write(_ sql: String, _ parameters: [SQLiteDatabase.Value]) {
        report(store.write(sql, parameters))
    }

    private func report(_ failure: String?) {
        guard let failure else { return }
        durability.writeFailed(failure)
        FileHandle.standardError.write(Data("fakeentra: --state: \(failure)\n".utf8))
    }

    func upsert(store name: String, key: String, value: [UInt8], forgetAt: Date) {
        write("INSERT OR REPLACE INTO records (world, store, key, value, forget_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(world), .text(name), .text(key), .blob(value), .real(forgetAt.timeIntervalSinceReferenceDate)])
    }

    func delete(store name: String, key: String) {
        write("DELETE FROM records WHERE world = ? AND store = ? AND key = ?", [.text(world), .text(name), .text(key)])
    }

    func deleteAll() {
        write("DELETE FROM records WHERE world = ?", [.text(world)])
    }

    func saveMeta(name: String, value: String) {
        write("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", [.text(name), .text(value)])
    }

    func saveDirectory(_ rows: [DirectoryRow]) {
        saveDirectory(rows, replacingSnapshot: false)
    }

    /// Writes `rows` in one transaction; a row already kept keeps its place (`sequence`), a new one goes last.
    func saveDirectory(_ rows: [DirectoryRow], replacingSnapshot: Bool) {
        report(store.write { database throws(SQLiteError) in
            for row in rows {
                if let value = row.value {
                    let sequence = nextSequence.withLock { next in defer { next += 1 }; return next }
                    try database.run("""
                        INSERT INTO directory_rows (world, kind, key, sequence, value) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (world, kind, key) DO UPDATE SET value = excluded.value
                        """, [.text(world), .text(row.kind.rawValue), .text(row.key), .integer(sequence), .blob(value)])
                } else {
                    try database.run("DELETE FROM directory_rows WHERE world = ? AND kind = ? AND key = ?", [.text(world), .text(row.kind.rawValue), .text(row.key)])
                }
            }
            if replacingSnapshot { try database.run("DELETE FROM directories WHERE world = ?", [.text(world)]) }
        })
    }
}
