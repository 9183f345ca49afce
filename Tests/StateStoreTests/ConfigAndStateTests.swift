import EntraCrypto
import ExchangeKernel
import Foundation
import IdentityPlatform
import StateStore
import Testing

/// `--config FILE --state DIR`: the file is the truth for what it names, the state keeps what happened
/// since, and every change the state loses to the file is reported.
@Suite("State store: the configuration file and the state together")
struct ConfigAndStateTests {
    static let credential: SigningCredential = try! SigningCredential.generate()
    static let app = "3c1e5b7a-2d4f-4a6b-8c9d-0e1f2a3b4c5d"

    /// The directory a configuration file describes: the embedded tenants, one app with `secrets`.
    static func described(secrets: [String], displayName: String = "Daemon", adelePassword: String = Directory.demoPassword) -> Directory {
        var directory = Directory.embeddedDefault
        directory.applications.append(Application(clientID: app, displayName: displayName, isPublicClient: false, secrets: secrets.map { .init(value: $0) }))
        if let adele = directory.users.firstIndex(where: { $0.userPrincipalName.hasPrefix("adele.vance") }) { directory.users[adele].password = adelePassword }
        return directory
    }

    func start(_ directory: Directory, state: String) throws -> (IdentityService, [DirectoryReconciliation.Note]) {
        let service = IdentityService(directory: directory, keys: SigningKeyRing(current: Self.credential), clock: VirtualClock())
        let notes = try SQLiteStateStore(directory: state).attach(service, reconciling: "fakeentra.json")
        return (service, notes)
    }

    func adele(_ service: IdentityService) -> DirectoryUser? {
        service.currentDirectory.users.first { $0.userPrincipalName.hasPrefix("adele.vance") }
    }

    @Test func aCredentialRemovedFromTheFileStopsWorkingAndItsReplacementWorks() throws {
        let state = NSTemporaryDirectory() + "fakeentra-config-state-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (first, firstNotes) = try start(Self.described(secrets: ["first-secret"]), state: state)
        #expect(firstNotes.isEmpty)
        #expect(first.currentDirectory.application(clientID: Self.app)?.secrets.map(\.value) == ["first-secret"])

        let (second, notes) = try start(Self.described(secrets: ["second-secret"]), state: state)
        #expect(second.currentDirectory.application(clientID: Self.app)?.secrets.map(\.value) == ["second-secret"])
        #expect(notes.isEmpty, "the state had not changed the app: the file's change is no conflict: \(notes)")
    }

    @Test func theStateKeepsWhatHappenedToWhatTheFileLeftAlone() throws {
        let state = NSTemporaryDirectory() + "fakeentra-config-state-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (first, _) = try start(Self.described(secrets: ["s"]), state: state)
        // While serving: a password reset, and an app added through the control API.
        first.directory.withLock { directory in
            if let index = directory.users.firstIndex(where: { $0.userPrincipalName.hasPrefix("adele.vance") }) { directory.users[index].password = "Reset-Pa55word" }
            directory.applications.append(Application(clientID: "added-while-serving", displayName: "Added"))
        }
        let (second, notes) = try start(Self.described(secrets: ["s"]), state: state)
        #expect(adele(second)?.password == "Reset-Pa55word", "the file did not change Adele: the reset is kept")
        #expect(second.currentDirectory.application(clientID: "added-while-serving") != nil, "the file never named it: kept")
        #expect(notes.isEmpty)

        // The file now changes Adele too: its version wins, and the lost reset is reported.
        let (third, conflicts) = try start(Self.described(secrets: ["s"], adelePassword: "From-The-F1le"), state: state)
        #expect(adele(third)?.password == "From-The-F1le")
        #expect(conflicts.map(\.decision) == [.fileWon] && conflicts.first?.kind == .user)
        #expect(conflicts.first?.description.contains("adele.vance") == true)
        #expect(third.currentDirectory.application(clientID: "added-while-serving") != nil)

        // What the restart decided was written: a start with the same file changes nothing more.
        let (_, quiet) = try start(Self.described(secrets: ["s"], adelePassword: "From-The-F1le"), state: state)
        #expect(quiet.isEmpty)
    }

    @Test func anObjectTheFileNoLongerNamesIsRemovedAndSaid() throws {
        let state = NSTemporaryDirectory() + "fakeentra-config-state-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try start(Self.described(secrets: ["s"]), state: state)
        let (second, notes) = try start(.embeddedDefault, state: state)
        #expect(second.currentDirectory.application(clientID: Self.app) == nil)
        #expect(notes.map(\.decision) == [.removedWithTheFile] && notes.first?.kind == .application)
        #expect(notes.first?.description.contains(Self.app) == true)
    }

    /// A state kept before the file's digests were: where it differs from the file, the file wins and says so.
    @Test func withoutEarlierDigestsTheFileWinsWhereTheyDiffer() {
        let file = Self.described(secrets: ["new"])
        let saved = Self.described(secrets: ["old"], displayName: "Daemon")
        let (directory, notes, digests) = DirectoryReconciliation.reconcile(file: file, saved: saved, earlier: nil)
        #expect(directory.application(clientID: Self.app)?.secrets.map(\.value) == ["new"])
        #expect(notes.count == 1 && notes.first?.decision == .fileWon)
        #expect(digests.count == file.users.count + file.applications.count + file.consents.count)
    }
}
