import Foundation
import PayPulseCoding
import Testing

@testable import PayPulseHandlers

/// The strict body parser: the same values as `JSONDecoder` for ordinary JSON, and a
/// refusal where a body could be read two ways or costs too much.
@Suite("JSON body parser")
struct JSONBodyParserTests {
    private func parse(_ text: String) throws(JSONBodyParser.Failure) -> JSONValue { try JSONBodyParser.parse(Array(text.utf8)) }

    @Test("ordinary documents parse as JSONDecoder reads them", arguments: [
        #"{"access_token":"ya29.x","refresh_token":"1//y","expires_in":3600,"scope":["a","b"],"email":null}"#,
        #" { "a" : [ 1 , -2 , 3.5 , -0.25 , true , false , null , "" , {} , [] ] } "#,
        #"{"escapes":"\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00","raw":"é€😀"}"#,
        #"{"big":9223372036854775807,"small":-9223372036854775808,"beyond":9223372036854775808,"zero":-0}"#,
        #"[]"#, #""text""#, "42", "null",
    ])
    func matchesJSONDecoder(text: String) throws {
        let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try parse(text) == expected)
    }

    @Test("a repeated key is refused at any depth, however it is spelled", arguments: [
        #"{"access_token":"a","access_token":"b"}"#,
        #"{"access_token":"a","access\u005ftoken":"b"}"#,
        #"{"a":{"x":1,"x":1}}"#,
        #"{"a":[{"k":null,"k":null}]}"#,
    ])
    func duplicateKeys(text: String) {
        #expect(throws: JSONBodyParser.Failure.duplicateKey) { try parse(text) }
    }

    @Test("nesting: 32 levels parse, 33 do not, 100k brackets fail fast")
    func depth() throws {
        let deepest = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: Never.self) { try parse(deepest) }
        #expect(throws: JSONBodyParser.Failure.tooDeep) { try parse("[" + deepest + "]") }
        #expect(throws: JSONBodyParser.Failure.tooDeep) { try parse(String(repeating: "[", count: 100_000)) }
        #expect(throws: JSONBodyParser.Failure.tooDeep) { try parse(String(repeating: #"{"a":"#, count: 100_000)) }
    }

    @Test("numbers outside a Double are refused; whole numbers beyond Int64, fractions and exponents become doubles")
    func numbers() throws {
        // JSONDecoder may read 3600.0 or 1e3 as an integer; here they are numbers, which
        // the body rules treat the same way (a whole number of seconds is accepted).
        #expect(try parse("3600.0") == .number(3600))
        #expect(try parse("1e3") == .number(1000))
        #expect(throws: JSONBodyParser.Failure.numberOutOfRange) { try parse("1e400") }
        #expect(throws: JSONBodyParser.Failure.numberOutOfRange) { try parse("-1e400") }
        #expect(try parse("9223372036854775808") == .number(9_223_372_036_854_775_808))
        #expect(try parse("1e308") == .number(1e308))
        #expect(try parse("-0") == .integer(0))
    }

    @Test("malformed JSON is a syntax failure", arguments: [
        "", " ", "{", "}", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, "01", "1.", ".5", "-", "+1", "1e", "1e+",
        "tru", "nul", "True", "NaN", "Infinity", #""unterminated"#, #""bad \x escape""#, #""\u12""#, #""\ud800""#,
        #""\udc00""#, #""\ud800\u0041""#, "\"tab\there\"", "\"line\nbreak\"", "{} {}", "\u{FEFF}{}", "[1]x",
    ])
    func syntax(text: String) {
        #expect(throws: JSONBodyParser.Failure.syntax) { try parse(text) }
    }

    @Test("bytes that are not UTF-8 inside a string are a syntax failure")
    func invalidUTF8() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            #expect(throws: JSONBodyParser.Failure.syntax) { try JSONBodyParser.parse(Array(#"{"a":""#.utf8) + bad + Array(#""}"#.utf8)) }
        }
    }
}
