import Testing
@testable import EntraHTTP

@Suite struct CookieParsingTests {
    @Test func namesValuesQuotesAndTheFirstValueOfANameWin() {
        let cookies = CookieCoding.parse(["a=1; b=\"two\"; a=3", "\tc = x=y ;d"])
        #expect(cookies == ["a": "1", "b": "two", "c ": " x=y"])
    }

    /// The parser splits on bytes: split on Characters, a Unicode prepend mark (U+0600) before `=`, or a
    /// combining mark after `;`, would merge with the separator into one Character.
    @Test func separatorsNextToUnicodeMarksStillSeparate() {
        let cookies = CookieCoding.parse(["n\u{0600}=v; m=;\u{0301}x=1"])
        #expect(cookies["n\u{0600}"] == "v")
        #expect(cookies["m"] == "")
        #expect(cookies["\u{0301}x"] == "1")
    }
}
