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

    @Test("points are sent upstream as their 0.01° cell, the cache's key: two points of one cell are one request")
    func upstreamCell() {
        let a = Coordinate(lat: 51.5073, lon: -0.1276)
        let b = Coordinate(lat: 51.5051, lon: -0.1349)
        #expect(a.lookupKey == b.lookupKey && a.lookupKey == .point(lat: 5151, lon: -13))
        #expect([a.upstreamLatitude, a.upstreamLongitude] == ["51.51", "-0.13"])
        #expect([b.upstreamLatitude, b.upstreamLongitude] == ["51.51", "-0.13"])
        #expect(
            Coordinate(lat: 51.5149, lon: 0).upstreamLatitude == "51.51" && Coordinate(lat: 51.5151, lon: 0).upstreamLatitude == "51.52")
        #expect(Coordinate(lat: -0.004, lon: 0.004).upstreamLatitude == "0.00", "never -0.00")
        #expect(Coordinate(lat: -90, lon: 180).upstreamLatitude == "-90.00" && Coordinate(lat: -90, lon: 180).upstreamLongitude == "180.00")
        #expect(
            Coordinate(lat: 0.07, lon: -0.07).upstreamLatitude == "0.07" && Coordinate(lat: 0.07, lon: -0.07).upstreamLongitude == "-0.07")
    }
}
