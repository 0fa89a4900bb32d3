import Testing

@testable import WeatherCore

/// `LookupKey.normalize`: the byte-wise path for ASCII names gives what the character-wise one does.
@Suite struct LookupKeyTests {
    @Test("names are folded to lower case, white space collapsed and trimmed around each comma")
    func examples() {
        #expect(LookupKey.normalize(city: "  New \t York ,\r\n US ") == "new york,us")
        #expect(LookupKey.normalize(city: "São  Paulo, BR") == "são paulo,br")
        #expect(LookupKey.normalize(city: ",,London,,") == ",,london,,")
        #expect(LookupKey.normalize(city: "") == "")
    }

    @Test("for ASCII text the byte-wise path equals the character-wise one (2,000 seeded strings)")
    func asciiPathEqualsUnicodePath() {
        let alphabet = Array("aZm,- .'\t\n\r\u{0B}\u{0C}\u{1C}\u{1F}\r\n09".unicodeScalars).map(Character.init)
        var random = SplitMix64(seed: 12)
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(LookupKey.normalizeASCII(text) == LookupKey.normalizeUnicode(text), "\(text.debugDescription)")
        }
        #expect(LookupKey.normalizeASCII("Zürich") == nil, "anything but ASCII takes the character-wise path")
    }
}
