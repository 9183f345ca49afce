import Testing
import LocatedJSON

/// Every syntax error names the exact line and column of the offending character.
@Suite struct ParserSyntaxErrorTests {
    @Test func unterminatedStringPointsAtTheOpeningQuote() {
        #expect(parseProblems("{\n  \"name\": \"abc\n}") ==
            [#"x.json:2:11: unterminated string (no closing '"' before the end of the line)"#])
        #expect(parseProblems("[\"abc") == [#"x.json:1:2: unterminated string (no closing '"' before the end of the file)"#])
        #expect(parseProblems("[\"abc\\") == [#"x.json:1:2: unterminated string (no closing '"' before the end of the file)"#])
    }

    @Test func badEscapePointsAtTheBackslash() {
        #expect(parseProblems(#"{"a": "x\qy"}"#) ==
            [#"x.json:1:9: invalid escape '\q' in string (allowed: \" \\ \/ \b \f \n \r \t \uXXXX)"#])
    }

    @Test func badUnicodeEscape() {
        #expect(parseProblems(#"["\u12G4"]"#) == [#"x.json:1:3: invalid unicode escape '\u12G4', expected 4 hex digits after \u"#])
        #expect(parseProblems(#"["\u12"]"#) == [#"x.json:1:3: invalid unicode escape '\u12', expected 4 hex digits after \u"#])
    }

    @Test func unpairedSurrogatesAreRejected() {
        #expect(parseProblems(#"["ab\uD800"]"#) ==
            [#"x.json:1:5: unpaired surrogate \uD800 in string (a surrogate must be written as a \uD8xx\uDCxx pair)"#])
        #expect(parseProblems(#"["\uDC00"]"#).first?.hasPrefix("x.json:1:3: unpaired surrogate \\uDC00") == true)
        #expect(parseProblems(#"["\uD83D\u0041"]"#).first?.hasPrefix("x.json:1:3: unpaired surrogate \\uD83D") == true)
    }

    @Test func rawControlCharacterInString() {
        #expect(parseProblems("[\"a\tb\"]") == ["x.json:1:4: control character U+0009 must be escaped in a string"])
    }

    @Test func trailingCommaPointsAtTheComma() {
        #expect(parseProblems("{\n  \"a\": 1,\n}") == ["x.json:2:9: trailing comma is not allowed before '}'"])
        #expect(parseProblems("[1, 2, ]") == ["x.json:1:6: trailing comma is not allowed before ']'"])
    }

    @Test func missingColon() {
        #expect(parseProblems(#"{"a" 1}"#) == [#"x.json:1:6: expected ':' after key "a", found '1'"#])
    }

    @Test func missingComma() {
        #expect(parseProblems("{\"a\": 1\n \"b\": 2}") == [#"x.json:2:2: expected ',' or '}', found '"'"#])
        #expect(parseProblems("[1 2]") == ["x.json:1:4: expected ',' or ']', found '2'"])
    }

    @Test func endOfFileInsideAnObject() {
        #expect(parseProblems("{\n  \"a\": {\n    \"b\": 1\n  }\n\n\n") == ["x.json:7:1: unexpected end of file, expected '}'"])
        #expect(parseProblems("{") == ["x.json:1:2: unexpected end of file, expected '}'"])
        #expect(parseProblems("[1,") == ["x.json:1:4: unexpected end of file, expected a value"])
        #expect(parseProblems(#"{"a":"#) == [#"x.json:1:6: unexpected end of file, expected a value for "a""#])
        #expect(parseProblems(#"{"a""#) == [#"x.json:1:5: unexpected end of file, expected ':' after key "a""#])
    }

    @Test func emptyDocument() {
        #expect(parseProblems("") == ["x.json:1:1: unexpected end of file, expected a JSON value"])
        #expect(parseProblems("  \n ") == ["x.json:2:2: unexpected end of file, expected a JSON value"])
    }

    @Test func invalidLiterals() {
        let expectation = "(true, false, null, a number, a string, an array or an object)"
        #expect(parseProblems("[True]") == ["x.json:1:2: invalid literal 'True', expected a value \(expectation)"])
        #expect(parseProblems(#"{"x": NaN}"#) == [#"x.json:1:7: invalid literal 'NaN', expected a value for "x" \#(expectation)"#])
        #expect(parseProblems("nul") == ["x.json:1:1: invalid literal 'nul', expected a JSON value \(expectation)"])
        #expect(parseProblems("[truex]") == ["x.json:1:2: invalid literal 'truex', expected a value \(expectation)"])
    }

    @Test func numbers() {
        #expect(parseProblems("[01]") == ["x.json:1:2: invalid number '01': leading zeros are not allowed"])
        #expect(parseProblems("[-]") == ["x.json:1:2: invalid number '-': expected a digit after '-'"])
        #expect(parseProblems("[1.]") == ["x.json:1:2: invalid number '1.': expected a digit after '.'"])
        #expect(parseProblems("[.5]") == ["x.json:1:2: expected a value, found '.'"])
        #expect(parseProblems("[1e+]") == ["x.json:1:2: invalid number '1e+': expected a digit in the exponent"])
        #expect(parseProblems("[-Infinity]") == ["x.json:1:2: invalid number '-Infinity': expected a digit after '-'"])
        #expect(parseProblems("[1e400]") == ["x.json:1:2: number 1e400 is out of range"])
        #expect(parseProblems("[+1]") == ["x.json:1:2: expected a value, found '+'"])
    }

    @Test func keysMustBeDoubleQuoted() {
        #expect(parseProblems("{name: 1}") == ["x.json:1:2: object keys must be double-quoted strings, found 'name'"])
        #expect(parseProblems("{'name': 1}") == ["x.json:1:2: strings must use double quotes, found '"])
        #expect(parseProblems("{1: 1}") == ["x.json:1:2: object keys must be double-quoted strings, found '1'"])
    }

    @Test func commentsAreRejected() {
        #expect(parseProblems("{\n  // note\n}") == ["x.json:2:3: comments are not allowed in JSON"])
        #expect(parseProblems("[1 /* x */]") == ["x.json:1:4: comments are not allowed in JSON"])
    }

    @Test func contentAfterTheDocument() {
        #expect(parseProblems("{} {}") == ["x.json:1:4: expected end of file after the JSON document, found '{'"])
        #expect(parseProblems("1 x") == ["x.json:1:3: expected end of file after the JSON document, found 'x'"])
    }

    @Test func unexpectedCloser() {
        #expect(parseProblems("[1}") == ["x.json:1:3: expected ',' or ']', found '}'"])
        #expect(parseProblems(#"{"a":}"#) == [#"x.json:1:6: expected a value for "a", found '}'"#])
        #expect(parseProblems("]") == ["x.json:1:1: expected a JSON value, found ']'"])
    }

    @Test func invisibleAndInvalidBytesAreNamed() {
        #expect(parseProblems("[\u{7F}]") == ["x.json:1:2: expected a value, found U+007F"])
        #expect(parseProblems("{\"a\":1}\u{0}") == ["x.json:1:8: expected end of file after the JSON document, found U+0000"])
        var bytes = Array("[".utf8)
        bytes.append(0xFF)
        #expect(throws: JSONProblems.self) { try LocatedJSON.parse(bytes, file: "x.json") }
        let invalidString: [UInt8] = [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]
        #expect(throws: JSONProblems([JSONProblem(file: "x.json", location: SourceLocation(line: 1, column: 2, offset: 1),
                                                  path: "", message: "string is not valid UTF-8")])) {
            try LocatedJSON.parse(invalidString, file: "x.json")
        }
    }

    @Test func syntaxErrorPathIsTheInnermostContainer() throws {
        do {
            _ = try LocatedJSON.parse(Array(#"{"apps": [{"id": 1}, {"id": tru}]}"#.utf8), file: "x.json")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.problems.map(\.path) == ["/apps/1"])
        }
    }
}
