import IdentityPlatform
import Synchronization

/// Where a request's binding is found without looking at every binding: by id, client id, user, tenant
/// alias and the server binding (each target is bound at most once), kept in step with the engine's
/// list of bindings; `position` keeps the list's order (the oldest binding wins where several match).
struct BindingIndex {
    private(set) var position: [String: Int] = [:]
    private var clients: [String: String] = [:]
    private var users: [String: String] = [:]
    private var aliases: [String: String] = [:]
    private(set) var server: String?

    init(_ bindings: [BindingInfo] = []) {
        for (index, info) in bindings.enumerated() { add(info, at: index) }
    }

    mutating func add(_ info: BindingInfo, at index: Int) {
        position[info.id] = index
        switch info.target {
        case .server: server = server ?? info.id
        case .client(let id): clients[id.lowercased()] = clients[id.lowercased()] ?? info.id
        case .user(let name): users[name.lowercased()] = users[name.lowercased()] ?? info.id
        case .tenantAlias(let alias, _): aliases[alias.lowercased()] = aliases[alias.lowercased()] ?? info.id
        }
    }

    /// The binding of exactly this target, if it is bound (a target is bound at most once).
    func bound(_ target: BindingTarget) -> String? {
        switch target {
        case .server: server
        case .client(let id): clients[id.lowercased()]
        case .user(let name): users[name.lowercased()]
        case .tenantAlias(let alias, _): aliases[alias.lowercased()]
        }
    }

    func client(_ id: String) -> String? { clients[id.lowercased()] }
    func alias(_ segment: String) -> String? { aliases[segment.lowercased()] }

    /// The oldest binding of one of `names` (lower-cased user names a request carries).
    func user(among names: some Sequence<String>) -> String? {
        names.compactMap { users[$0] }.min { (position[$0] ?? .max) < (position[$1] ?? .max) }
    }
}

/// Which bound world issued each live handle (refresh token, code, device or user code, sign-in flow),
/// as the worlds' stores report them (`IdentityService.reportHandles`): a request presenting one is sent
/// to its world in one lookup, however many worlds there are.
final class HandleOwners: Sendable {
    private let owners = Mutex<[String: String]>([:])

    /// Sends every later change of `world`'s handles here.
    func watch(_ world: ScenarioWorld) {
        let id = world.id
        world.service.reportHandles { [weak self] key, present in
            self?.owners.withLock { owners in
                if present { owners[key] = id } else if owners[key] == id { owners[key] = nil }
            }
        }
    }

    /// The world that issued one of `handles`, if a watched one did.
    func owner(of handles: [String]) -> String? {
        let keys = handles.flatMap { PlatformState.handleKeys(for: $0) }
        return owners.withLock { owners in keys.first { owners[$0] != nil }.flatMap { owners[$0] } }
    }

    /// Drops what `world` reported (unbound, or replaced by a fresh world on reset).
    func forget(world id: String) {
        owners.withLock { owners in owners = owners.filter { $0.value != id } }
    }
}
