package import FoundationGaps
import Synchronization

/// Every instant the identity platform reads (issue, expiry, code lifetime, polling interval) comes from
/// here, so tests and scenarios move time without sleeping.
package protocol TimeSource: Sendable {
    func now() -> Date
}

/// Real time plus an adjustable offset, or a frozen instant plus an offset.
/// Scenarios advance it; tests freeze it.
///
/// The offset stays within `offsetRange` (±100 years): every reading then lies well inside the years
/// 0001–9999 that timestamps, JWT NumericDates and HTTP dates can spell, so no clock move can make
/// formatting or integer conversion overflow. A move that would leave the range is refused.
package final class VirtualClock: TimeSource {
    /// ±100 Julian years (36,525 days) in seconds.
    package static let offsetLimit: TimeInterval = 3_155_760_000
    package static let offsetRange: ClosedRange<TimeInterval> = -offsetLimit...offsetLimit

    private enum Base: Sendable {
        case real
        case frozen(Date)
    }

    private let state: Mutex<(base: Base, offset: TimeInterval)>

    /// Follows real time.
    package init() { state = Mutex((base: .real, offset: 0)) }

    /// Stands still at `instant` until advanced.
    package init(frozenAt instant: Date) { state = Mutex((base: .frozen(instant), offset: 0)) }

    package func now() -> Date {
        state.withLock { s in
            switch s.base {
            case .real: Date().addingTimeInterval(s.offset)
            case .frozen(let instant): instant.addingTimeInterval(s.offset)
            }
        }
    }

    package var offset: TimeInterval { state.withLock { $0.offset } }

    /// Moves the clock by `seconds`; false (and the clock unchanged) when the offset would leave `offsetRange`.
    @discardableResult
    package func advance(by seconds: TimeInterval) -> Bool {
        state.withLock { s in
            let moved = s.offset + seconds
            guard Self.offsetRange.contains(moved) else { return false }
            s.offset = moved
            return true
        }
    }

    /// Moves the clock so that `now()` returns `instant`; false (and the clock unchanged) when that is
    /// further from the base than `offsetRange` allows.
    @discardableResult
    package func set(to instant: Date) -> Bool {
        state.withLock { s in
            let base: Date = switch s.base {
            case .real: Date()
            case .frozen(let frozen): frozen
            }
            let offset = instant.timeIntervalSince(base)
            guard Self.offsetRange.contains(offset) else { return false }
            s.offset = offset
            return true
        }
    }

    package func resetOffset() { state.withLock { $0.offset = 0 } }
}
