import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("JSON numbers written as read")
struct JSONNumberTextTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    /// Numbers that `.integer` or `.double` would write differently, and some they write the same.
    static let numbers = [
        "18446744073709551616", "-18446744073709551617", "1e400", "-1e400", "1E+400", "1e-400", "0.10", "1.0",
        "-0", "-0.0", "0e0", "123456789012345678901234567890.5", "100.0", "1e2", "1E2", "1e+20", "2.50",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "0.30000000000000004", "0.3000000000000000444", "8.94", "-0.1257", "0", "42", "-7",
    ]

    @Test("a number is written back with exactly the characters it was read as", arguments: numbers)
    func roundTrip(_ text: String) throws {
        #expect(try parse(text).serialized == text)
        #expect(try parse("[\(text),{\"id\":\(text)}]").serialized == "[\(text),{\"id\":\(text)}]")
    }

    @Test("numbers that .integer or .double write the same way stay .integer or .double")
    func plainNumbersStayPlain() throws {
        #expect(try parse("42") == .integer(42))
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
        #expect(try parse("8.94") == .double(8.94))
        #expect(try parse("1e+20") == .double(1e20))
        guard case .integer = try parse("-7") else {
            Issue.record("-7 is not an .integer")
            return
        }
        guard case .double = try parse("-0.1257") else {
            Issue.record("-0.1257 is not a .double")
            return
        }
    }

    @Test("other numbers keep their text", arguments: ["-0", "1.0", "0.10", "1e2", "1e400", "18446744073709551616"])
    func keptAsText(_ text: String) throws {
        guard case .numberText(let number) = try parse(text) else {
            Issue.record("\(text) was not kept as text: \(try parse(text))")
            return
        }
        #expect(number.text == text)
        #expect(number.description == text)
    }

    @Test("a number kept as text has the value it converts to")
    func values() throws {
        #expect(try parse("18446744073709551616").doubleValue == 18446744073709551616.0)
        #expect(try parse("18446744073709551616").intValue == nil)
        #expect(try parse("-18446744073709551617").doubleValue == -18446744073709551617.0)
        #expect(try parse("123456789012345678901234567890.5").doubleValue == 123456789012345678901234567890.5)
        #expect(try parse("123456789012345678901234567890.5").intValue == nil)
        #expect(try parse("1.0").doubleValue == 1)
        #expect(try parse("1.0").intValue == 1)
        #expect(try parse("1e2").intValue == 100)
        #expect(try parse("0.10").doubleValue == 0.1)
        #expect(try parse("0.10").intValue == nil)
        #expect(try parse("-0").intValue == 0)
        #expect(try parse("-0.0").doubleValue == 0)
        #expect(try parse("1e-400").doubleValue == 0)
        #expect(try parse("1e400").isNumber)
        #expect(try parse("1e400").doubleValue == nil, "no Double holds it")
        #expect(try parse("-1e400").intValue == nil)
    }

    @Test("a number kept as text equals (and hashes as) the .integer or .double it converts to")
    func equality() throws {
        #expect(try parse("1.0") == .double(1))
        #expect(try parse("1.0") != .integer(1), "as before, 1.0 is a double and 1 an integer")
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("0.10") == .double(0.1))
        #expect(try parse("0.10") == parse("0.1000"))
        #expect(try parse("18446744073709551616") == .double(18446744073709551616.0))
        #expect(try parse("1e400") == parse("1e400"))
        #expect(try parse("1e400") != parse("1E400"), "beyond a Double only the same text is equal")
        #expect(try parse("1e400") != .double(.infinity))
        #expect(try parse("1e400") != .null)
        #expect(try Set([parse("1.0"), .double(1), parse("1e0"), parse("-0"), .integer(0)]).count == 2)
        #expect(try parse(#"{"id":1.0}"#) == .object(["id": .double(1)]))
    }

    @Test("a JSONNumberText is made only of one JSON number")
    func makingNumberText() throws {
        let number = try #require(JSONNumberText("0.10"))
        #expect(JSONValue.numberText(number).serialized == "0.10")
        #expect(JSONValue.array([.numberText(number), .integer(1)]).serialized == "[0.10,1]")
        for text in ["", " 1", "1 ", "01", "1.", ".5", "+1", "0x10", "NaN", "\"1\"", "[1]", "1,2", "-"] {
            #expect(JSONNumberText(text) == nil, "\(text.debugDescription)")
        }
        #expect(JSONNumberText("-0")?.text == "-0")
        #expect(JSONNumberText("1e400")?.text == "1e400")
    }

    @Test("strings are written back as the same string; escapes that need none are written as the character")
    func stringsRoundTripByValue() throws {
        let text = #""\u00e9\/\ud83d\ude00 \"\\ \u0041\n\u2028""#
        let value = try parse(text)
        #expect(value == .string("é/😀 \"\\ A\n\u{2028}"))
        #expect(value.serialized == #""é/😀 \"\\ A\n\u2028""#)
        #expect(try parse(value.serialized) == value)
    }
}
