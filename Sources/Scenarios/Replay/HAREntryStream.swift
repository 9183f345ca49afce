import FoundationGaps
import LocatedJSON

/// Where a HAR capture's bytes come from. The importer reads a capture three times, one entry at a
/// time, so a 50,000-entry export never sits in memory as one object graph (it took 1.5 GB that way).
package enum HARSource: Sendable {
    case bytes([UInt8])
    case file(path: String)

    /// Calls `body` with each element of `log.entries`, in order, as its own JSON bytes.
    func forEachEntry(source name: String, _ body: ([UInt8]) throws(HARImportError) -> Void) throws(HARImportError) {
        var scanner = HAREntryScanner()
        switch self {
        case .bytes(let bytes):
            try scanner.feed(bytes, source: name, body)
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else { throw HARImportError(message: "cannot read \(path)") }
            defer { try? handle.close() }
            while true {
                let chunk: Data
                do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch { throw HARImportError(message: "cannot read \(path): \(error.localizedDescription)") }
                if chunk.isEmpty { break }
                try scanner.feed([UInt8](chunk), source: name, body)
            }
        }
        try scanner.finish(source: name)
    }
}

/// A byte-at-a-time walk over a JSON document that tracks only nesting, strings and the keys of the
/// top two levels: enough to cut out each element of `{"log": {"entries": [...]}}` wherever the
/// chunks it is fed happen to split, without building the document.
struct HAREntryScanner {
    /// One open container: an object knows whether a key or a value comes next; both know the key
    /// they sit under (only for the top two levels, the rest need no names).
    private struct Frame {
        var isObject: Bool
        var key: String?
        var expectingKey = true
    }

    /// A single entry larger than this is refused: no HAR tool writes one, and it would be held whole.
    static let maximumEntryBytes = 64 << 20
    private static let trackedKeyLength = 32

    private var stack: [Frame] = []
    private var inString = false
    private var escaped = false
    private var stringIsTrackedKey = false
    private var keyBytes: [UInt8] = []
    private var lastKey: String?
    private var entry: [UInt8] = []
    private var capturing = false
    private var sawRoot = false
    private var sawEntries = false
    private var rootClosed = false
    private var offset = 0

    mutating func feed(_ bytes: some Sequence<UInt8>, source: String, _ body: ([UInt8]) throws(HARImportError) -> Void) throws(HARImportError) {
        for byte in bytes {
            defer { offset += 1 }
            if capturing {
                entry.append(byte)
                if entry.count > Self.maximumEntryBytes { throw HARImportError(message: "\(source): an entry larger than 64 MiB at byte \(offset)") }
            }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if stringIsTrackedKey { lastKey = Self.decodeKey(keyBytes) }
                } else if stringIsTrackedKey, keyBytes.count <= Self.trackedKeyLength {
                    keyBytes.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case _ where rootClosed:
                throw notHAR(source, "text after the document at byte \(offset)")
            case UInt8(ascii: "\""):
                if stack.count == 3, isInsideEntries { throw notHAR(source, "an entry that is not an object at byte \(offset)") }
                inString = true
                let expectingKey = stack.last.map { $0.isObject && $0.expectingKey } ?? false
                stringIsTrackedKey = expectingKey && stack.count <= 2
                keyBytes.removeAll(keepingCapacity: true)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard !stack.isEmpty || byte == UInt8(ascii: "{") else { throw notHAR(source, "the document is not an object") }
                if stack.count == 3, isInsideEntries, !capturing {
                    guard byte == UInt8(ascii: "{") else { throw notHAR(source, "an entry that is not an object at byte \(offset)") }
                    capturing = true
                    entry = [byte]
                }
                let key = stack.last?.isObject == true ? lastKey : nil
                stack.append(Frame(isObject: byte == UInt8(ascii: "{"), key: stack.count <= 2 ? key : nil))
                sawRoot = true
                if stack.count == 3, isInsideEntries {
                    guard byte == UInt8(ascii: "[") else { throw notHAR(source, "log.entries is not an array") }
                    sawEntries = true
                }
                lastKey = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let top = stack.popLast(), top.isObject == (byte == UInt8(ascii: "}")) else {
                    throw notHAR(source, "unbalanced \(Character(UnicodeScalar(byte))) at byte \(offset)")
                }
                if capturing, stack.count == 3 {
                    capturing = false
                    let complete = entry
                    entry = []
                    try body(complete)
                }
                if stack.isEmpty { rootClosed = true }
            case UInt8(ascii: ":"):
                guard stack.last?.isObject == true else { throw notHAR(source, "a stray ':' at byte \(offset)") }
                stack[stack.count - 1].expectingKey = false
            case UInt8(ascii: ","):
                guard !stack.isEmpty else { throw notHAR(source, "a stray ',' at byte \(offset)") }
                if stack[stack.count - 1].isObject { stack[stack.count - 1].expectingKey = true }
            default:
                // Numbers, true, false, null: their letters and signs; anything else is no JSON.
                let isScalarByte = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                guard isScalarByte, !stack.isEmpty else { throw notHAR(source, "unexpected byte \(byte) at byte \(offset)") }
                if stack.count == 3, isInsideEntries { throw notHAR(source, "an entry that is not an object at byte \(offset)") }
            }
        }
    }

    mutating func finish(source: String) throws(HARImportError) {
        guard sawRoot, stack.isEmpty, !inString else { throw notHAR(source, sawRoot ? "the document ends early" : "the file is empty") }
        guard sawEntries else { throw notHAR(source, "no log.entries") }
    }

    /// True when the open containers are the root object, its `log` object and `log.entries`.
    private var isInsideEntries: Bool {
        stack.count >= 3 && stack[0].isObject && stack[1].isObject && stack[1].key == "log" && stack[2].key == "entries"
    }

    private static func decodeKey(_ bytes: [UInt8]) -> String? {
        guard bytes.count <= trackedKeyLength else { return nil }
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        let literal: [UInt8] = [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
        return LocatedJSON.parse(body: literal, source: "key")?.string
    }

    private func notHAR(_ source: String, _ detail: String) -> HARImportError {
        HARImportError(message: "\(source): not a HAR file (expected {\"log\": {\"entries\": [...]}}): \(detail)")
    }
}
