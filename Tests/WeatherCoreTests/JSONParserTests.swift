import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("JSON parser (RFC 8259)")
struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    private func rejects(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: JSONParseError.self, "\(text.debugDescription) should be rejected", sourceLocation: sourceLocation) {
            try JSONValue.parse(Array(text.utf8))
        }
    }

    @Test("nested objects and arrays parse into the matching values")
    func nesting() throws {
        let value = try parse(#" { "a" : [1, 2.5, {"b": null}, []], "c": true, "d": false, "e": {} } "#)
        #expect(
            value
                == .object([
                    "a": .array([.integer(1), .double(2.5), .object(["b": .null]), .array([])]),
                    "c": .bool(true), "d": .bool(false), "e": .object([:]),
                ]))
    }

    @Test("every escape of RFC 8259 is decoded")
    func escapes() throws {
        let value = try parse(#""q\" b\\ s\/ \b\f\n\r\t \u00e9\u0041""#)
        #expect(value == .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t éA"))
    }

    @Test("runs of UTF-8 text between escapes are kept whole")
    func escapesBetweenText() throws {
        #expect(try parse(#""São\nPaulo \u2601 東京\t""#) == .string("São\nPaulo ☁ 東京\t"))
        #expect(try parse(#""\"""#) == .string("\""))
    }

    @Test("a surrogate pair escape is one scalar outside the BMP")
    func surrogatePair() throws {
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\uD834\uDD1E""#) == .string("𝄞"))
    }

    @Test("UTF-8 text inside strings is kept as is")
    func utf8Text() throws {
        #expect(try parse(#""São Paulo ☁ 東京""#) == .string("São Paulo ☁ 東京"))
    }

    @Test("numbers without fraction or exponent are integers, others doubles")
    func integersAndDoubles() throws {
        #expect(try parse("90") == .integer(90))
        #expect(try parse("-7") == .integer(-7))
        #expect(try parse("0") == .integer(0))
        #expect(try parse("90.0") == .double(90))
        #expect(try parse("8.94") == .double(8.94))
        #expect(try parse("1e2") == .double(100))
        #expect(try parse("-2.5E-3") == .double(-0.0025))
        #expect(try parse("9223372036854775807") == .integer(Int64.max))
        #expect(try parse("92233720368547758070") == .double(Double("92233720368547758070")!))
    }

    @Test("object members keep their order")
    func memberOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":3,"b":4}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m", "b"])
        #expect(value.serialized == #"{"z":1,"a":2,"m":3,"b":4}"#)
    }

    @Test("whitespace around values is allowed: space, tab, newline, carriage return")
    func whitespace() throws {
        #expect(try parse(" \t\r\n[ 1 ,\n2 ] \n") == .array([.integer(1), .integer(2)]))
    }

    @Test(
        "garbage is rejected",
        arguments: [
            "", " ", "nul", "tru", "True", "NaN", "Infinity", "-", "+1", "01", "1.", ".5", "1e", "0x10",
            "'a'", "{", "[", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":}"#, #""abc"#,
            #""\x""#, #""\u12""#, #""\u12G4""#, "}", "[1 2]",
        ])
    func rejectsGarbage(_ text: String) {
        rejects(text)
    }

    @Test("text after the value is rejected", arguments: ["{} x", "1 2", "[]]", #""a""b""#, "null,", "true false"])
    func rejectsTrailingText(_ text: String) {
        rejects(text)
    }

    @Test("a raw control character inside a string is rejected")
    func rejectsControlCharacters() {
        for byte in [0x00, 0x01, 0x0A, 0x09, 0x1F] as [UInt8] {
            #expect(throws: JSONParseError.self, "byte \(byte)") {
                try JSONValue.parse([0x22, 0x61, byte, 0x62, 0x22])
            }
        }
    }

    @Test(
        "lone or mismatched surrogates are rejected",
        arguments: [
            #""\ud800""#, #""\udc00""#, #""\ud800x""#, #""\ud800\u0041""#, #""\ud800\ud800""#, #""\ude00\ud83d""#,
        ])
    func rejectsLoneSurrogates(_ text: String) {
        rejects(text)
    }

    @Test("invalid UTF-8 inside a string is rejected")
    func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x22]) }
    }

    @Test("nesting up to 64 levels is accepted, deeper is rejected")
    func depthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try parse(ok).arrayValue != nil)
        let mixed = String(repeating: #"{"a":["#, count: 32) + String(repeating: "]}", count: 32)
        #expect(try parse(mixed).objectValue != nil)
        rejects(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
        rejects(String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65))
    }

    @Test("a hostile depth fails cleanly instead of exhausting the stack")
    func hostileDepth() {
        rejects(String(repeating: "[", count: 100_000))
    }

    @Test("the error names the offset where parsing stopped")
    func errorOffset() throws {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[1, x]".utf8)) }
        #expect(error?.offset == 4)
    }
}
