import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherDaemon

@Suite("SodiumOpener: the OwnTracks app's encrypted payloads opened with libsodium")
struct SodiumOpenerTests {
    @Test("the encrypted fixture opens with its documented key and reads as location-5s.json")
    func fixtureOpens() throws {
        let opener = SodiumOpener(secret: Secret(Fixture.ownTracksSecret))
        let opened = OwnTracksPayload.parse(try Fixture.ownTracks("encrypted-location-5s.json"), opener: opener)
        let plain = OwnTracksPayload.parse(try Fixture.ownTracks("location-5s.json"), opener: nil)
        guard case .success(.location(let fix)) = opened else {
            Issue.record("not opened: \(opened)")
            return
        }
        #expect(opened == plain)
        #expect(fix.coordinate == Coordinate(lat: 53.430722, lon: 5.112126) && fix.accuracy == 9)
    }

    @Test("another key, a cut box or a flipped bit does not open it")
    func refused() throws {
        let payload = try Fixture.ownTracks("encrypted-location-5s.json")
        #expect(OwnTracksPayload.parse(payload, opener: SodiumOpener(secret: Secret("another-key"))) == .failure(.cannotDecrypt))
        let text = try #require(JSONValue.parse(payload)["data"]?.stringValue)
        var box = try #require(Data(base64Encoded: text)).map { $0 }
        let opener = SodiumOpener(secret: Secret(Fixture.ownTracksSecret))
        #expect(opener.open(box) != nil)
        #expect(opener.open(Array(box.prefix(39))) == nil)
        #expect(opener.open(Array(box.prefix(10))) == nil)
        box[box.count - 1] ^= 1
        #expect(opener.open(box) == nil)
    }

    @Test("the opener never shows its key")
    func redacted() {
        let opener = SodiumOpener(secret: Secret(Fixture.ownTracksSecret))
        #expect("\(opener)" == "SodiumOpener(<redacted>)" && String(reflecting: opener) == "SodiumOpener(<redacted>)")
    }
}
