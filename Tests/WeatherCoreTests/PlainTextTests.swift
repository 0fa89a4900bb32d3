import Testing

@testable import WeatherCore

/// The text helpers that stand in for Foundation's `String(format:)` and `CharacterSet` (the daemon
/// links FoundationEssentials, without ICU).
@Suite("Plain text: fixed decimals, hexadecimal, trimmed white space")
struct PlainTextTests {
    @Test(
        "fixed decimals are printf's %.4f, rounding included",
        arguments: [
            (51.50735, "51.5074"), (-0.12776, "-0.1278"), (0, "0.0000"), (-0.00001, "-0.0000"), (180, "180.0000"),
            (2.00005, "2.0000"), (1.00005, "1.0001"), (1e20, "100000000000000000000.0000"),
        ] as [(Double, String)])
    func fixedDecimals(_ value: Double, _ text: String) {
        #expect(NumberText.fixed(value, decimals: 4) == text)
    }

    @Test("a value too long for the first buffer is written whole")
    func hugeValue() {
        let text = NumberText.fixed(1e300, decimals: 2)
        #expect(text.count == 304)
        #expect(text.hasPrefix("1000000000000000052504760255204420248704"))
        #expect(text.hasSuffix(".00"))
        #expect(NumberText.fixed(.infinity, decimals: 4) == "inf")
    }

    @Test("hexadecimal in upper case, padded to the digits asked")
    func hexadecimal() {
        #expect(NumberText.hex(UInt8(0x0A), digits: 2) == "0A")
        #expect(NumberText.hex(UInt8(0xFF), digits: 2) == "FF")
        #expect(NumberText.hex(UInt32(0x1F), digits: 4) == "001F")
        #expect(NumberText.hex(UInt32(0x1F600), digits: 4) == "1F600")
    }

    @Test("white space and newlines go at both ends, not between")
    func trimmed() {
        #expect(" \t Paris \r\n".trimmingWhitespace() == "Paris")
        #expect("New York".trimmingWhitespace() == "New York")
        #expect("\u{00A0}Zürich\u{2003}".trimmingWhitespace() == "Zürich")
        #expect(" \n\t ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect(Int(" 120 ".trimmingWhitespace()) == 120)
    }
}
