import EntraCrypto
import FoundationGaps

/// `serve --config FILE --state DIR`: what each decides about the users, apps and consents both hold. The
/// file is the truth for what it names; the state keeps what happened since (objects added through the
/// control API or a sign-up, and changes to the file's objects while the file left them alone).
///
/// A three-way comparison tells the two apart: the state also keeps a digest of each object as the file
/// described it at the last start (`FileDigests`). An object the file still describes as it did then
/// keeps the state's version (a password reset, a PATCH); one the file changed takes the file's version,
/// and if the state had changed it too, that change is lost and reported. An object the file described
/// before and no longer does is removed. Every loss is a `Note`, printed at start-up.
package enum DirectoryReconciliation {
    /// Digests of the file's objects at the last start, by `kind/key`.
    package typealias FileDigests = [String: String]

    package struct Note: Sendable, Equatable, CustomStringConvertible {
        package enum Decision: Sendable, Equatable {
            /// The file's version replaced one the state had changed (or, with no earlier digests, one that differs).
            case fileWon
            /// The file no longer names it: removed from the state too.
            case removedWithTheFile
        }

        package var kind: DirectoryRow.Kind
        package var name: String
        package var decision: Decision

        package var description: String {
            switch decision {
            case .fileWon: "\(kind.rawValue) \(name): the file's version won over the one the state kept"
            case .removedWithTheFile: "\(kind.rawValue) \(name): removed from the file, so removed from the state"
            }
        }
    }

    /// `file`: the directory the configuration describes; `saved`: the one the state restored; `earlier`:
    /// the file's digests at the last start (nil when none were kept: a state written before they were,
    /// or without `--config`). Returns the directory to serve, the notes, and the digests to keep.
    package static func reconcile(file: Directory, saved: Directory, earlier: FileDigests?) -> (directory: Directory, notes: [Note], digests: FileDigests) {
        var notes: [Note] = []
        var digests: FileDigests = [:]
        var result = file
        result.users = merge(.user, file: file.users, saved: saved.users, earlier: earlier, key: \.id, name: \.userPrincipalName, notes: &notes, digests: &digests)
        result.applications = merge(.application, file: file.applications, saved: saved.applications, earlier: earlier, key: \.clientID,
                                    name: { "\($0.displayName) (\($0.clientID))" }, notes: &notes, digests: &digests)
        result.consents = merge(.consent, file: file.consents, saved: saved.consents, earlier: earlier, key: \.rowKey,
                                name: { "of \($0.clientID) for \($0.resourceAppID) (\($0.userID.map { "user \($0)" } ?? "every user"))" }, notes: &notes, digests: &digests)
        return (result, notes, digests)
    }

    /// In the state's order (the order objects were added), then the file's new objects.
    private static func merge<Element: Encodable & Equatable>(
        _ kind: DirectoryRow.Kind, file: [Element], saved: [Element], earlier: FileDigests?,
        key: (Element) -> String, name: (Element) -> String, notes: inout [Note], digests: inout FileDigests
    ) -> [Element] {
        let described = Dictionary(file.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        for element in file { digests[kind.rawValue + "/" + key(element)] = digest(of: element) }
        var merged: [Element] = []
        var placed = Set<String>()
        for kept in saved {
            let id = key(kept)
            let earlierDigest = earlier?[kind.rawValue + "/" + id]
            guard let fileVersion = described[id] else {
                // Described by the file before and no longer: gone. Never described: made while serving, kept.
                if earlierDigest != nil { notes.append(Note(kind: kind, name: name(kept), decision: .removedWithTheFile)) } else { merged.append(kept) }
                continue
            }
            placed.insert(id)
            if kept == fileVersion || earlierDigest == digests[kind.rawValue + "/" + id] {
                merged.append(kept)
            } else {
                merged.append(fileVersion)
                if earlierDigest != digest(of: kept) { notes.append(Note(kind: kind, name: name(fileVersion), decision: .fileWon)) }
            }
        }
        for element in file where !placed.contains(key(element)) { merged.append(element) }
        return merged
    }

    /// Of the object's JSON with sorted keys: the same object gives the same digest in every process.
    static func digest(of element: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Hex.lowercase(Digest.sha256((try? encoder.encode(element)).map(Array.init) ?? []))
    }
}
