#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// RFC 3339 timestamps in UTC (`2025-01-06T09:00:00.123Z`), written and read with FoundationEssentials'
/// ISO 8601 format style, which needs no locale data.
package enum InternetTimestamp {
    package static func string(_ date: Date, fractionalSeconds: Bool = true) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: fractionalSeconds).format(date)
    }

    /// A timestamp with or without fractional seconds; nil for anything else.
    package static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
