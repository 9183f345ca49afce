import ExchangeKernel
import EntraHTTP
import Foundation
import Graph
import IdentityPlatform
import LocatedJSON
import Testing
@testable import Scenarios

/// A far-moved clock must not crash the server (a Double→Int trap when Graph renders its error's date):
/// the virtual clock keeps to ±100 years and every date formatter is total.
@Suite struct ClockRangeTests {
    private func advance(_ harness: Harness, _ seconds: String) -> (status: Int, code: String?) {
        let response = harness.send(Harness.json("POST", "/_fakeentra/clock/advance", #"{"seconds": \#(seconds)}"#))
        let error = Harness.body(response)["error"] as? [String: Any]
        return (response.status.code, error?["code"] as? String)
    }

    @Test func theControlAPIRefusesAMoveBeyondTheRangeInItsErrorShape() {
        let harness = Harness()
        for seconds in ["1e19", "-1e19", "1e300", "3155760001", "-3155760001"] {
            let refused = advance(harness, seconds)
            #expect(refused.status == 400, "\(seconds)")
            #expect(refused.code == "clock_out_of_range", "\(seconds)")
        }
        #expect(harness.service.clock.now() == Harness.start, "a refused move leaves the clock alone")
        #expect(advance(harness, "3155760000").status == 200, "the limit itself is allowed")
        #expect(advance(harness, "1").code == "clock_out_of_range", "the offset, not each step, is bounded")
        // Graph renders the error's date from the moved clock: this request crashed the server.
        let graph = harness.send(Harness.get("/v1.0/me"))
        #expect(graph.status.code == 401)
        let date = ((Harness.body(graph)["error"] as? [String: Any])?["innerError"] as? [String: Any])?["date"] as? String
        #expect(date?.hasPrefix("2130-") == true, "\(date ?? "no date")")
    }

    @Test func aRuleThatJumpsTooFarLeavesTheClockWhereItWas() throws {
        let scenario = try Harness.scenario(#"{"name": "jumpy", "description": "d", "rules": [{"match": {"endpoint": "graph"}, "action": {"advanceClock": 3000000000}, "times": "always"}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "jumpy", to: .server)
        let world = try #require(harness.engine.world(binding: "b1"))
        _ = harness.send(Harness.get("/v1.0/me"))
        #expect(world.virtualClock?.offset == 3_000_000_000)
        _ = harness.send(Harness.get("/v1.0/me"))
        #expect(world.virtualClock?.offset == 3_000_000_000, "a second jump would pass +100 years")
        #expect(harness.send(Harness.get("/v1.0/me")).status.code == 401)
    }

    @Test func scenarioFilesAreRefusedAtTheOffendingNumber() {
        let text = """
        {
          "name": "far-future",
          "description": "x",
          "clock": { "offsetSeconds": 1e19 },
          "rules": [{ "action": { "advanceClock": -1e19 } }]
        }
        """
        guard case .failure(let failure) = ScenarioLibrary.parse(Array(text.utf8), file: "far.json") else {
            Issue.record("a clock offset of 1e19 s was accepted")
            return
        }
        let found = failure.problems.map { "\($0.location.line):\($0.location.column)" }
        #expect(found == ["4:31", "5:43"])
        #expect(failure.problems.first?.message.contains("at most 3155760000") == true, "\(failure.problems.first?.message ?? "")")
    }

    @Test func dateFormattingIsTotal() {
        for seconds in [1e19, -1e19, .infinity, -.infinity, .nan, Double(Int.max), -Double(Int.max)] {
            let instant = Date(timeIntervalSince1970: seconds)
            let civil = CivilTime(instant)
            #expect(civil.year == (seconds > 0 ? 9999 : 1) || seconds.isNaN, "\(seconds)")
            _ = civil.httpDate
            _ = civil.isoSevenDigits
            _ = CivilTime(instant, offset: 14 * 3600).isoSeconds
            _ = InternetDate.format(secondsSince1970: seconds)
            _ = GraphTimeZone.utc.civil(instant)
        }
        #expect(CivilTime(Date(timeIntervalSince1970: 1e19)).isoSeconds == "9999-12-31T23:59:59")
        #expect(CivilTime(Date(timeIntervalSince1970: -1)).isoSeconds == "1969-12-31T23:59:59")
    }
}
