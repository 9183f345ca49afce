import EntraCrypto
import Foundation
import ExchangeKernel
import IdentityPlatform
@testable import StateStore
import Testing

/// The directory is kept as rows: a change writes what it changed, the order survives a restart, and a
/// file of the earlier snapshot format is migrated.
@Suite("State store: the directory as rows")
struct DirectoryRowsTests {
    static let credential: SigningCredential = try! SigningCredential.generate()

    func attached(_ directory: String, users: Int = 0) throws -> (IdentityService, SQLiteStateStore) {
        var start = Directory.embeddedDefault
        let template = start.users[0]
        for index in 0..<users {
            var user = template
            user.id = String(format: "00000000-0000-4000-8000-%012d", index)
            user.userPrincipalName = "user\(index)@contoso.onmicrosoft.com"
            start.users.append(user)
        }
        let service = IdentityService(directory: start, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        let store = try SQLiteStateStore(directory: directory)
        try store.attach(service)
        return (service, store)
    }

    func totalChanges(_ store: SQLiteStateStore) throws -> Int {
        try store.withDatabase { database throws(SQLiteError) in
            Int(String(decoding: try database.run("SELECT total_changes()", columns: 1)[0][0], as: UTF8.self)) ?? -1
        }
    }

    @Test func oneUserChangedIsOneRowWritten() throws {
        let directory = NSTemporaryDirectory() + "fakeentra-rows-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (service, store) = try attached(directory, users: 2_000)
        let before = try totalChanges(store)
        service.directory.withLock { $0.users[1_000].displayName = "Renamed" }
        #expect(try totalChanges(store) - before == 1)
        // Removing one and adding one: two rows.
        let removed = service.currentDirectory.users[5].id
        service.directory.withLock { directory in
            let added = directory.users.remove(at: 5)
            var copy = added
            copy.id = "0f0f0f0f-0000-4000-8000-000000000001"
            copy.userPrincipalName = "new@contoso.onmicrosoft.com"
            directory.users.append(copy)
        }
        #expect(try totalChanges(store) - before == 3)

        let (restarted, _) = try attached(directory)
        let users = restarted.currentDirectory.users
        #expect(users.map(\.id) == service.currentDirectory.users.map(\.id), "the order survives a restart")
        #expect(users.contains { $0.displayName == "Renamed" } && !users.contains { $0.id == removed })
    }

    @Test func aSnapshotOfTheEarlierFormatIsMigrated() throws {
        let directory = NSTemporaryDirectory() + "fakeentra-rows-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, store) = try attached(directory)
        var users = Directory.embeddedDefault.users
        users[0].displayName = "Kept Across Versions"
        let encoder = JSONEncoder()
        let snapshot = "{\"users\":\(String(decoding: try encoder.encode(users), as: UTF8.self)),\"applications\":[],\"consents\":[]}"
        try store.withDatabase { database throws(SQLiteError) in
            try database.run("DELETE FROM directory_rows", [])
            try database.run("INSERT OR REPLACE INTO directories (world, snapshot) VALUES ('default', ?)", [.blob(Array(snapshot.utf8))])
            try database.run("UPDATE meta SET value = '1' WHERE name = 'schema'", [])
        }
        let (migrated, after) = try attached(directory)
        #expect(migrated.currentDirectory.users.first?.displayName == "Kept Across Versions")
        let (rows, snapshots, schema) = try after.withDatabase { database throws(SQLiteError) in
            (try database.run("SELECT key FROM directory_rows WHERE kind = 'user'", columns: 1).count,
             try database.run("SELECT world FROM directories", columns: 1).count,
             String(decoding: try database.run("SELECT value FROM meta WHERE name = 'schema'", columns: 1)[0][0], as: UTF8.self))
        }
        #expect(rows == users.count && snapshots == 0 && schema == "2")
    }
}
