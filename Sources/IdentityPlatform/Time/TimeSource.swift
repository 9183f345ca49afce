import Foundation
import Synchronization

/// Every instant the identity platform reads (issue, expiry, code lifetime, polling interval) comes from
/// here, so tests and scenarios move time without sleeping.
public protocol TimeSource: Sendable {
    func now() -> Date
}

/// Real time plus an adjustable offset, or a frozen instant plus an offset.
/// Scenarios advance it; tests freeze it.
public final class VirtualClock: TimeSource {
    private enum Base: Sendable {
        case real
        case frozen(Date)
    }

    private let state: Mutex<(base: Base, offset: TimeInterval)>

    /// Follows real time.
    public init() { state = Mutex((base: .real, offset: 0)) }

    /// Stands still at `instant` until advanced.
    public init(frozenAt instant: Date) { state = Mutex((base: .frozen(instant), offset: 0)) }

    public func now() -> Date {
        state.withLock { s in
            switch s.base {
            case .real: Date().addingTimeInterval(s.offset)
            case .frozen(let instant): instant.addingTimeInterval(s.offset)
            }
        }
    }

    public var offset: TimeInterval { state.withLock { $0.offset } }

    public func advance(by seconds: TimeInterval) {
        state.withLock { $0.offset += seconds }
    }

    /// Moves the clock so that `now()` returns `instant`.
    public func set(to instant: Date) {
        state.withLock { s in
            let base: Date = switch s.base {
            case .real: Date()
            case .frozen(let frozen): frozen
            }
            s.offset = instant.timeIntervalSince(base)
        }
    }

    public func resetOffset() { state.withLock { $0.offset = 0 } }
}
