import EntraHTTP
import Testing

@Suite("RFC 3339 and Entra timestamps")
struct InternetDateTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(InternetDate.format(secondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(InternetDate.format(secondsSince1970: 1_735_689_600.25) == "2025-01-01T00:00:00.250Z")
        #expect(InternetDate.format(secondsSince1970: 951_782_400, fractionalDigits: 0) == "2000-02-29T00:00:00Z")
        #expect(InternetDate.format(secondsSince1970: -1) == "1969-12-31T23:59:59.000Z")
    }

    @Test func entraTimestampHasASpaceAndNoFraction() {
        #expect(InternetDate.entraTimestamp(secondsSince1970: 1_735_732_800.9) == "2025-01-01 12:00:00Z")
    }

    @Test(arguments: [1e300, -1e300, Double.infinity, -Double.infinity, Double.nan])
    func outOfRangeInstantsAreClampedNotTrapped(seconds: Double) {
        let text = InternetDate.format(secondsSince1970: seconds)
        #expect(text.hasPrefix("9999-12-31T23:59:59") || text.hasPrefix("0001-01-01T00:00:00"))
    }
}
