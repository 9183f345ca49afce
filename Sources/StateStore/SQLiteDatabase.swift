private import CSQLite
import FoundationGaps

/// A failed SQLite call, with the library's own message read at the failure site.
package struct SQLiteError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection and its prepared statements; the only owner of SQLite's pointers. Unchecked
/// Sendable because it is not thread-safe by itself: `SQLiteStateStore` keeps it in a Mutex and every use
/// happens inside that lock.
final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws(SQLiteError) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status, message: message)
        }
        handle = opened
        // Another process holding the file (a second `serve --state` on it) gets a clear error, not a hang.
        sqlite3_busy_timeout(handle, 2000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private var lastError: SQLiteError { SQLiteError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle))) }

    /// Runs SQL without parameters or results (schema, pragmas).
    func execute(_ sql: String) throws(SQLiteError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastError }
    }

    /// A value bound to a statement's parameter.
    enum Value {
        case text(String)
        case blob([UInt8])
        case real(Double)
        case integer(Int64)
    }

    /// Runs `body` as one transaction: all of its statements are committed, or none.
    func transaction(_ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs one statement (prepared once, then reused) with `parameters`; returns each row's columns as
    /// text or blob bytes.
    @discardableResult
    func run(_ sql: String, _ parameters: [Value] = [], columns: Int = 0) throws(SQLiteError) -> [[[UInt8]]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, parameter) in parameters.enumerated() {
            let position = Int32(index + 1)
            let status: Int32 = switch parameter {
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient) }
            case .real(let number): sqlite3_bind_double(statement, position, number)
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            }
            guard status == SQLITE_OK else { throw lastError }
        }
        var rows: [[[UInt8]]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw lastError }
            rows.append((0..<Int32(columns)).map { column -> [UInt8] in
                let count = Int(sqlite3_column_bytes(statement, column))
                guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
                return Array(UnsafeRawBufferPointer(start: bytes, count: count))
            })
        }
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else { throw lastError }
        statements[sql] = statement
        return statement
    }

    /// SQLite copies bound values before the call returns (SQLITE_TRANSIENT, a macro Swift cannot import).
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}
