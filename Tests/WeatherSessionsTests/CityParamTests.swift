import Testing

@testable import WeatherCore
@testable import WeatherSessions

/// The `city` param: the byte-wise path for ASCII names gives what the character-wise one does.
@Suite struct CityParamTests {
    @Test("white space is collapsed and trimmed; empty, over 200 characters and control characters are refused")
    func examples() {
        #expect(Params.asciiCity("  New \t York ,\r\n US ") == .some("New York , US"))
        #expect(Params.asciiCity(" \t\r\n ") == .some(nil))
        #expect(Params.asciiCity("a\u{01}b") == .some(nil))
        #expect(Params.asciiCity("a\u{7F}") == .some(nil))
        #expect(Params.asciiCity(String(repeating: "x", count: 200)) == .some(String(repeating: "x", count: 200)))
        #expect(Params.asciiCity(String(repeating: "x", count: 201)) == .some(nil))
        #expect(Params.asciiCity("Zürich") == nil, "anything but ASCII takes the character-wise path")
        #expect(Params.unicodeCity("  Zürich ") == "Zürich")
    }

    @Test("for ASCII text the byte-wise path equals the character-wise one (3,000 seeded strings)")
    func asciiPathEqualsUnicodePath() {
        let alphabet = Array("aZm,- .'\t\n\r\u{0B}\u{0C}\u{00}\u{1C}\u{1F}\u{7F}\r\n09".unicodeScalars).map(Character.init)
        var random = SplitMix64(seed: 21)
        for round in 0..<3000 {
            // Some long enough to reach the 200-character limit.
            let length = round % 10 == 0 ? Int.random(in: 190...230, using: &random) : Int.random(in: 0...12, using: &random)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
            #expect(Params.asciiCity(text) == .some(Params.unicodeCity(text)), "\(text.debugDescription)")
        }
    }
}
