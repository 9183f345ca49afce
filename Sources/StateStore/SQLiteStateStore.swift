import Foundation
package import IdentityPlatform
import Synchronization

/// `serve --state DIR`: the platform's state in one SQLite database, `DIR/fakeentra.sqlite3`. WAL mode,
/// and every change is its own transaction, committed before the request that made it is answered: a
/// `kill -9` loses at most the request in flight and never leaves a half-written store. (`synchronous =
/// NORMAL`: a committed transaction survives the process dying; only a power cut can lose the last few.)
package final class SQLiteStateStore: Sendable {
    package static let fileName = "fakeentra.sqlite3"
    static let schemaVersion = "1"

    private let database: Mutex<SQLiteDatabase>
    package let path: String

    package init(directory: String) throws(SQLiteError) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        // Sessions, refresh tokens and users' passwords live here: owner-only, like the signing key.
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SQLiteError(code: errno, message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS records (
                world TEXT NOT NULL, store TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, forget_at REAL NOT NULL,
                PRIMARY KEY (world, store, key)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS directories (world TEXT PRIMARY KEY, snapshot BLOB NOT NULL);
            INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', '\(Self.schemaVersion)');
            """)
        let version = try database.run("SELECT value FROM meta WHERE name = 'schema'", columns: 1).first?.first.map { String(decoding: $0, as: UTF8.self) }
        guard version == Self.schemaVersion else {
            throw SQLiteError(code: 0, message: "\(path) was written by another version of fakeentra (schema \(version ?? "?")); move it away to start afresh")
        }
        self.database = Mutex(database)
    }

    /// Loads `world`'s persisted directory and records into `service`, forgetting those already due, and
    /// from then on writes every change of it here.
    package func attach(_ service: IdentityService, world: String = "default") throws(SQLiteError) {
        let persistence = WorldPersistence(store: self, world: world)
        let now = service.clock.now()
        let (snapshot, rows): ([UInt8]?, [PersistedRecord]) = try withDatabase { database throws(SQLiteError) in
            try database.run("DELETE FROM records WHERE world = ? AND forget_at <= ?", [.text(world), .real(now.timeIntervalSinceReferenceDate)])
            let snapshot = try database.run("SELECT snapshot FROM directories WHERE world = ?", [.text(world)], columns: 1).first?.first
            let rows = try database.run("SELECT store, key, value FROM records WHERE world = ? ORDER BY forget_at", [.text(world)], columns: 3).map {
                PersistedRecord(store: String(decoding: $0[0], as: UTF8.self), key: String(decoding: $0[1], as: UTF8.self), value: $0[2])
            }
            return (snapshot, rows)
        }
        var restoredDirectory = false
        if let snapshot {
            restoredDirectory = service.directory.withLock { $0.restore(persistedSnapshot: snapshot) }
        }
        service.directory.attach(persistence)
        if !restoredDirectory { persistence.saveDirectory(service.currentDirectory.persistedSnapshot) }
        service.state.withLock { $0.attach(persistence, restoring: rows) }
    }

    /// Runs `body` with the connection, alone.
    @discardableResult
    func withDatabase<Result: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try database.withLock { database throws(SQLiteError) in try body(database) }
    }

    /// A write the server cannot make is reported on stderr; the request it belongs to still gets its answer
    /// (the state in memory is right; only the copy on disk is behind).
    func write(_ sql: String, _ parameters: [SQLiteDatabase.Value]) {
        do {
            try withDatabase { database throws(SQLiteError) in try database.run(sql, parameters) }
        } catch {
            FileHandle.standardError.write(Data("fakeentra: --state \(path): \(error)\n".utf8))
        }
    }
}

/// One world's rows in the store.
final class WorldPersistence: StatePersistence {
    let store: SQLiteStateStore
    let world: String

    init(store: SQLiteStateStore, world: String) {
        self.store = store
        self.world = world
    }

    func upsert(store name: String, key: String, value: [UInt8], forgetAt: Date) {
        store.write("INSERT OR REPLACE INTO records (world, store, key, value, forget_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(world), .text(name), .text(key), .blob(value), .real(forgetAt.timeIntervalSinceReferenceDate)])
    }

    func delete(store name: String, key: String) {
        store.write("DELETE FROM records WHERE world = ? AND store = ? AND key = ?", [.text(world), .text(name), .text(key)])
    }

    func deleteAll() {
        store.write("DELETE FROM records WHERE world = ?", [.text(world)])
    }

    func saveDirectory(_ snapshot: [UInt8]) {
        store.write("INSERT OR REPLACE INTO directories (world, snapshot) VALUES (?, ?)", [.text(world), .blob(snapshot)])
    }
}
