import IdentityFixtures
@testable import Journal
import Foundation
import EntraHTTP
import Testing
@testable import ExchangeKernel
@testable import IdentityPlatform

/// The harvest skips a body no sensitive name can be in (`Redaction.mayNameSecrets`): that shortcut must
/// never skip a body whose names `Redaction.isSensitive` would take.
@Suite struct SecretPrefilterTests {
    static func body(naming name: String) -> [UInt8] { Array("{\"\(name)\":\"value\"}".utf8) }

    @Test func everySensitiveNameAndItsSpellingsPassTheFilter() {
        for name in Redaction.sensitiveNames {
            let spellings = [name, name.uppercased(), name.map(String.init).joined(separator: "_"),
                             name.map(String.init).joined(separator: "-"), name.map(String.init).joined(separator: ". ")]
            for spelling in spellings {
                #expect(Redaction.isSensitive(spelling), "\(spelling)")
                #expect(Redaction.mayNameSecrets(Self.body(naming: spelling)), "\(spelling)")
                #expect(Redaction.mayNameSecrets(Array("a=1&\(spelling)=2".utf8)), "\(spelling) in a form")
            }
        }
    }

    /// Names joined from pieces of the sensitive names, other words and the characters names ignore, in
    /// mixed case: whenever one is sensitive, the filter lets its body through (a fixed generator, so a
    /// failure reproduces).
    @Test func noGeneratedSensitiveNameIsSkipped() {
        let pieces = ["co", "de", "to", "ken", "s", "pass", "word", "wd", "p", "sec", "ret", "assert", "ion", "ot", "c",
                      "_", "-", ".", " ", "user", "id", "hint", "new", "x", "PW", "D", "Tok", "EN"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        var sensitive = 0
        for _ in 0..<20_000 {
            var name = ""
            for _ in 0..<(1 + next(5)) {
                let piece = pieces[next(pieces.count)]
                name += next(4) == 0 ? piece.uppercased() : piece
            }
            guard Redaction.isSensitive(name) else {
                continue
            }
            sensitive += 1
            #expect(Redaction.mayNameSecrets(Self.body(naming: name)), "\(name)")
        }
        #expect(sensitive > 200, "the generator reaches sensitive names (\(sensitive))")
    }

    @Test func bodiesWithoutSensitiveNamesAreSkipped() {
        #expect(!Redaction.mayNameSecrets(Array(#"{"status":"ok","version":"1.0","uptimeSeconds":12.345}"#.utf8)))
        #expect(Redaction.mayNameSecrets(Array(#"{"error":{"code_x":1}}"#.utf8)), "a stem passes in a name that is not sensitive")
        #expect(!Redaction.mayNameSecrets(Array("grant_type=client_credentials&scope=openid".utf8)))
    }

    @Test func escapedOrEncodedNamesAlwaysPass() {
        for text in [#"{"\u0063ode":"x"}"#, "client%5Fsecret=x", #"<input name="&#99;ode" value="x">"#, "{\"c\u{00F6}de\":1}"] {
            #expect(Redaction.mayNameSecrets(Array(text.utf8)), "\(text)")
        }
    }

    /// JSON in UTF-16 or UTF-32 without a byte order mark: ASCII bytes with zeros between the letters.
    @Test func wideTextAlwaysPasses() {
        let text = #"{"refresh_token":"R3fr3sh-T0ken-Value-42"}"#
        let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE = text.unicodeScalars.flatMap { [UInt8($0.value & 0xFF), 0, 0, 0] }
        for body in [utf16LE, utf16BE, utf32LE] { #expect(Redaction.mayNameSecrets(body)) }
        let memory = SecretMemory()
        let request = HTTPRequest(method: "POST", target: "/_fakeentra/users", headers: ["Content-Type": "application/json"], body: utf16LE)
        SecretHarvest.learn(from: request, response: HTTPResponse(status: .ok), receipt: Receipt(), into: memory)
        #expect(Redaction.scrub("the token R3fr3sh-T0ken-Value-42", memory: memory) != "the token R3fr3sh-T0ken-Value-42", "Foundation reads UTF-16 JSON")
    }

    /// A form_post page's hidden inputs: names with entities.
    @Test func pagesWithSensitiveInputsPass() {
        #expect(Redaction.mayNameSecrets(Array(#"<input type="hidden" name="code" value="x">"#.utf8)))
        #expect(Redaction.mayNameSecrets(Array(#"<input type="hidden" name="id&#95;token" value="x">"#.utf8)))
        #expect(!Redaction.mayNameSecrets(Array(#"<input type="hidden" name="state" value="x">"#.utf8)))
    }

    @Test func anEscapedNameIsStillHarvested() {
        let memory = SecretMemory()
        let request = HTTPRequest(method: "POST", target: "/_fakeentra/users", headers: ["Content-Type": "application/json"],
                                  body: Array(#"{"new_pass\u0077ord":"Correct-Horse-7"}"#.utf8))
        SecretHarvest.learn(from: request, response: HTTPResponse(status: .ok), receipt: Receipt(), into: memory)
        #expect(Redaction.scrub("typed Correct-Horse-7 here", memory: memory) != "typed Correct-Horse-7 here")
    }

    /// The names classified once at start-up answer as the same names spelled otherwise, which take the
    /// general path (normalised: case, `_`, `-` and `.` do not count).
    @Test func commonNamesAnswerAsTheGeneralPathDoes() {
        #expect(Redaction.commonNames.count > 30)
        var disagreements: [String] = []
        for name in Redaction.commonNames.keys {
            let respelled = name.uppercased().replacingOccurrences(of: "_", with: "-")
            #expect(Redaction.commonNames[respelled] == nil)
            if Redaction.isSensitive(name) != Redaction.isSensitive(respelled) || Redaction.isLengthOnly(name) != Redaction.isLengthOnly(respelled) {
                disagreements.append(name)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
        // What each answer must be, written out rather than derived.
        let lengthOnly: Set = ["client_secret", "password"]
        let sensitive: Set = lengthOnly.union(["code", "code_verifier", "refresh_token", "client_assertion", "device_code",
                                               "assertion", "access_token", "id_token"])
        var wrong: [String] = []
        for name in Redaction.commonNames.keys.sorted() {
            if Redaction.isSensitive(name) != sensitive.contains(name) || Redaction.isLengthOnly(name) != lengthOnly.contains(name) {
                wrong.append(name)
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }
}
