#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import Synchronization

/// UTC offsets of named time zones (`Europe/Paris`) read from the system's tz database (TZif files under
/// `$TZDIR` or `/usr/share/zoneinfo`), daylight saving included, with the file's POSIX rule for instants
/// after its last transition. FoundationEssentials knows only fixed offsets without ICU's data.
package struct ZoneInfo: Sendable {
    private let transitions: [Int64]
    private let offsets: [Int]          // per transition
    private let initialOffset: Int
    private let rule: PosixRule?

    /// The zone's data, read once per process; nil when the database has no such zone.
    package static func named(_ identifier: String) -> ZoneInfo? {
        if let known = cache.withLock({ $0[identifier] }) { return known }
        guard identifier.range(of: "..") == nil, !identifier.hasPrefix("/"),
              let bytes = FileManager.default.contents(atPath: directory + "/" + identifier),
              let zone = ZoneInfo(tzif: Array(bytes)) else { return nil }
        cache.withLock { $0[identifier] = zone }
        return zone
    }

    private static let cache = Mutex<[String: ZoneInfo]>([:])
    private static var directory: String { ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo" }

    /// Seconds east of UTC at `instant`.
    package func offset(at instant: Date) -> Int {
        let t = Int64(instant.timeIntervalSince1970.rounded(.down))
        guard let last = transitions.last, t >= transitions[0] else { return initialOffset }
        if t >= last, let rule { return rule.offset(at: t) }
        var low = 0, high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= t { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    init?(tzif bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        var timeSize = 4
        var counts = header.counts
        if header.version >= 2 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            reader.skip(counts.time * 5 + counts.type * 6 + counts.chars + counts.leap * 8 + counts.std + counts.ut)
            guard let second = reader.header() else { return nil }
            counts = second.counts
            timeSize = 8
        }
        var times: [Int64] = []
        for _ in 0..<counts.time { guard let time = reader.signed(timeSize) else { return nil }; times.append(time) }
        var indices: [Int] = []
        for _ in 0..<counts.time { guard let index = reader.byte() else { return nil }; indices.append(Int(index)) }
        var types: [(offset: Int, isDST: Bool)] = []
        for _ in 0..<counts.type {
            guard let offset = reader.signed(4), let dst = reader.byte(), reader.byte() != nil else { return nil }
            types.append((Int(offset), dst != 0))
        }
        guard !types.isEmpty, indices.allSatisfy({ $0 < types.count }) else { return nil }
        reader.skip(counts.chars + counts.leap * (timeSize + 4) + counts.std + counts.ut)
        transitions = times
        offsets = indices.map { types[$0].offset }
        initialOffset = (types.first { !$0.isDST } ?? types[0]).offset
        rule = header.version >= 2 ? reader.footer().flatMap(PosixRule.init) : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        struct Counts { var ut = 0, std = 0, leap = 0, time = 0, type = 0, chars = 0 }

        mutating func header() -> (version: Int, counts: Counts)? {
            guard position + 44 <= bytes.count, bytes[position..<position + 4].elementsEqual("TZif".utf8) else { return nil }
            let version = bytes[position + 4] == 0 ? 1 : Int(bytes[position + 4]) - 0x30
            position += 20
            var values: [Int] = []
            for _ in 0..<6 { values.append(Int(signed(4) ?? 0)) }
            return (version, Counts(ut: values[0], std: values[1], leap: values[2], time: values[3], type: values[4], chars: values[5]))
        }

        mutating func skip(_ count: Int) { position = min(bytes.count, position + count) }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func signed(_ size: Int) -> Int64? {
            guard position + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[position..<position + size] { value = value << 8 | UInt64(byte) }
            position += size
            return size == 4 ? Int64(Int32(bitPattern: UInt32(value))) : Int64(bitPattern: value)
        }

        /// The POSIX TZ string between the two newlines that end a version 2+ file.
        mutating func footer() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\n"),
                  let end = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        }
    }
}

/// A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`): standard and daylight offsets and when daylight time
/// starts and ends each year (`Mm.w.d`, `Jn` or `n`, with an optional local time).
struct PosixRule: Sendable {
    let standard: Int
    let daylight: (offset: Int, start: Boundary, end: Boundary)?

    struct Boundary: Sendable {
        enum Day: Sendable { case monthWeekDay(Int, Int, Int), julianNoLeap(Int), zeroBased(Int) }
        let day: Day
        let time: Int
    }

    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let std = scanner.offset() else { return nil }
        standard = -std
        guard !scanner.atEnd else { daylight = nil; return }
        guard scanner.name() else { return nil }
        let dst = scanner.peekIsOffset ? scanner.offset() : std - 3600
        guard let dst, scanner.take(","), let start = scanner.boundary(), scanner.take(","), let end = scanner.boundary() else { return nil }
        daylight = (-dst, start, end)
    }

    func offset(at t: Int64) -> Int {
        guard let daylight else { return standard }
        let year = Self.civilYear(t + Int64(standard))
        let start = Self.instant(daylight.start, year: year) - Int64(standard)
        let end = Self.instant(daylight.end, year: year) - Int64(daylight.offset)
        let inDaylight = start < end ? (t >= start && t < end) : (t >= start || t < end)
        return inDaylight ? daylight.offset : standard
    }

    /// Seconds since 1970 of the boundary's local wall-clock moment, as if that wall clock were UTC.
    static func instant(_ boundary: Boundary, year: Int) -> Int64 {
        let day: Int
        switch boundary.day {
        case .monthWeekDay(let month, let week, let weekday):
            let first = daysFromCivil(year, month, 1)
            let firstWeekday = Int((first % 7 + 11) % 7)   // 1970-01-01 was a Thursday (4)
            var date = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = daysInMonth(year, month)
            while date > length { date -= 7 }
            day = Int(daysFromCivil(year, month, date))
        case .julianNoLeap(let n):
            let leapShift = isLeap(year) && n >= 60 ? 1 : 0
            day = Int(daysFromCivil(year, 1, 1)) + n - 1 + leapShift
        case .zeroBased(let n):
            day = Int(daysFromCivil(year, 1, 1)) + n
        }
        return Int64(day) * 86400 + Int64(boundary.time)
    }

    static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
    static func daysInMonth(_ y: Int, _ m: Int) -> Int { [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] }

    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 { Int64(CivilDate.days(year: year, month: month, day: day)) }

    static func civilYear(_ t: Int64) -> Int {
        CivilDate.date(daysSinceEpoch: Int(t >= 0 ? t / 86400 : (t - 86399) / 86400)).year
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }
        var peekIsOffset: Bool {
            guard !atEnd else { return false }
            let byte = bytes[position]
            return byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39)
        }

        mutating func take(_ character: Character) -> Bool {
            guard !atEnd, bytes[position] == character.asciiValue! else { return false }
            position += 1
            return true
        }

        /// `CET` or `<+0330>`.
        mutating func name() -> Bool {
            if take("<") {
                while !atEnd, bytes[position] != UInt8(ascii: ">") { position += 1 }
                return take(">")
            }
            let start = position
            while !atEnd, (bytes[position] | 0x20) >= UInt8(ascii: "a"), (bytes[position] | 0x20) <= UInt8(ascii: "z") { position += 1 }
            return position - start >= 3
        }

        mutating func number() -> Int? {
            let start = position
            var value = 0
            while !atEnd, bytes[position] >= 0x30, bytes[position] <= 0x39 { value = value * 10 + Int(bytes[position] - 0x30); position += 1 }
            return position > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds, POSIX's sign (west of Greenwich positive).
        mutating func offset() -> Int? {
            let negative = take("-")
            if !negative { _ = take("+") }
            guard let hours = number() else { return nil }
            var seconds = hours * 3600
            if take(":"), let minutes = number() { seconds += minutes * 60; if take(":"), let s = number() { seconds += s } }
            return negative ? -seconds : seconds
        }

        mutating func boundary() -> Boundary? {
            let day: Boundary.Day
            if take("M") {
                guard let month = number(), take("."), let week = number(), take("."), let weekday = number(),
                      (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else { return nil }
                day = .monthWeekDay(month, week, weekday)
            } else if take("J") {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julianNoLeap(n)
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            let time = take("/") ? offset() : 7200
            guard let time else { return nil }
            return Boundary(day: day, time: time)
        }
    }
}
