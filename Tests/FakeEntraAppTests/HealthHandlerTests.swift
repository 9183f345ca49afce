import Testing
@testable import FakeEntraApp

@Suite struct HealthHandlerTests {
    @Test(arguments: [(Duration.milliseconds(12_345), "12.345"), (.milliseconds(7), "0.007"), (.zero, "0.000"),
                      (.microseconds(1_999), "0.001"), (.seconds(86_400 * 365), "31536000.000")])
    func uptimeIsSecondsWithMilliseconds(uptime: Duration, text: String) {
        #expect(HealthHandler.secondsWithMilliseconds(uptime) == text)
    }
}
