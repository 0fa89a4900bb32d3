import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// A stand-in for libsodium (which the core never links): the "box" is a 24-byte nonce, then the
/// plaintext XOR-ed with the key's first byte; any other first nonce byte is "another key".
struct XOROpener: OwnTracksOpener {
    var key: UInt8 = 0x5a

    func open(_ box: [UInt8]) -> [UInt8]? {
        guard box.count >= 24, box[0] == key else { return nil }
        return box.dropFirst(24).map { $0 ^ key }
    }

    func seal(_ plain: [UInt8]) -> [UInt8] {
        [key] + [UInt8](repeating: 0, count: 23) + plain.map { $0 ^ key }
    }

    func encryptedPayload(_ plain: [UInt8]) -> [UInt8] {
        Array(#"{"_type":"encrypted","data":"\#(Data(seal(plain)).base64EncodedString())"}"#.utf8)
    }
}

@Suite("OwnTracks payloads: the app's JSON read in the core, each bad one dropped with its reason")
struct OwnTracksPayloadTests {
    func parse(_ name: String, opener: (any OwnTracksOpener)? = nil) throws -> Result<OwnTracksPayload.Message, OwnTracksDropReason> {
        OwnTracksPayload.parse(try Fixture.ownTracks(name), opener: opener)
    }

    @Test("location-5s.json: lat, lon, acc, tst, tid and batt")
    func location() throws {
        let expected = OwnTracksLocation(
            coordinate: Coordinate(lat: 53.430722, lon: 5.112126), accuracy: 9, at: Date(timeIntervalSince1970: 1_701_263_310),
            trackerID: "SG", battery: 94)
        #expect(try parse("location-5s.json") == .success(.location(expected)))
    }

    @Test("location-short.json: no acc (an unknown accuracy) and no tid")
    func short() throws {
        let expected = OwnTracksLocation(
            coordinate: Coordinate(lat: 44.221389, lon: 6.64635), accuracy: nil, at: Date(timeIntervalSince1970: 1_692_430_980),
            trackerID: nil, battery: 100)
        #expect(try parse("location-short.json") == .success(.location(expected)))
    }

    @Test("location-lat-missing.json is dropped: a location without lat")
    func latMissing() throws {
        #expect(try parse("location-lat-missing.json") == .failure(.missing("lat")))
    }

    @Test(
        "transition, waypoint and lwt are accepted and ignored",
        arguments: [
            ("transition.json", "transition"), ("waypoint-circular.json", "waypoint"), ("lwt.json", "lwt"),
        ])
    func otherTypes(name: String, type: String) throws {
        #expect(try parse(name) == .success(.ignored(type: type)))
    }

    @Test("an encrypted payload is opened with the opener and read as the location inside")
    func encrypted() throws {
        let opener = XOROpener()
        let payload = opener.encryptedPayload(try Fixture.ownTracks("location-5s.json"))
        guard case .success(.location(let fix)) = OwnTracksPayload.parse(payload, opener: opener) else {
            Issue.record("not read as a location")
            return
        }
        #expect(fix.coordinate == Coordinate(lat: 53.430722, lon: 5.112126))
    }

    @Test("encrypted: without a key, with another key, with bad base64, nested")
    func encryptedDrops() throws {
        let plain = try Fixture.ownTracks("location-5s.json")
        let payload = XOROpener().encryptedPayload(plain)
        #expect(OwnTracksPayload.parse(payload, opener: nil) == .failure(.noSecret))
        #expect(OwnTracksPayload.parse(payload, opener: XOROpener(key: 0x33)) == .failure(.cannotDecrypt))
        #expect(
            OwnTracksPayload.parse(Array(#"{"_type":"encrypted","data":"%%%not base64"}"#.utf8), opener: XOROpener())
                == .failure(.badBase64))
        #expect(OwnTracksPayload.parse(Array(#"{"_type":"encrypted","data":17}"#.utf8), opener: XOROpener()) == .failure(.badBase64))
        let nested = XOROpener().encryptedPayload(payload)
        #expect(OwnTracksPayload.parse(nested, opener: XOROpener()) == .failure(.nestedEncryption))
    }

    @Test(
        "bad payloads are dropped with their reason",
        arguments: [
            ("", OwnTracksDropReason.notJSON),
            ("\u{0}\u{1}\u{2}binary", .notJSON),
            (#"{"_type":"location","lat":1"#, .notJSON),
            ("[1,2]", .noType),
            (#"{"lat":1,"lon":2,"tst":1701263310}"#, .noType),
            (#"{"_type":7}"#, .noType),
            (#"{"_type":"location","lat":1,"tst":1701263310}"#, .missing("lon")),
            (#"{"_type":"location","lat":1,"lon":2}"#, .missing("tst")),
            (#"{"_type":"location","lat":null,"lon":2,"tst":1701263310}"#, .missing("lat")),
            (#"{"_type":"location","lat":"53.4","lon":2,"tst":1701263310}"#, .invalid("lat")),
            (#"{"_type":"location","lat":91,"lon":2,"tst":1701263310}"#, .invalid("lat")),
            (#"{"_type":"location","lat":1,"lon":-180.5,"tst":1701263310}"#, .invalid("lon")),
            (#"{"_type":"location","lat":1,"lon":2,"tst":"yesterday"}"#, .invalid("tst")),
            (#"{"_type":"location","lat":1,"lon":2,"tst":-5}"#, .invalid("tst")),
        ])
    func drops(payload: String, reason: OwnTracksDropReason) {
        #expect(OwnTracksPayload.parse(Array(payload.utf8), opener: nil) == .failure(reason))
    }

    @Test("a payload over 64 KiB is dropped before it is read")
    func tooLarge() {
        let payload = [UInt8](repeating: UInt8(ascii: " "), count: OwnTracksPayload.maxBytes + 1)
        #expect(OwnTracksPayload.parse(payload, opener: nil) == .failure(.tooLarge(bytes: OwnTracksPayload.maxBytes + 1)))
    }

    @Test("acc, batt and tid out of their range are unknown, not a reason to drop the fix")
    func optionalMembers() {
        let payload = #"{"_type":"location","lat":1,"lon":2,"tst":1701263310,"acc":-3,"batt":400,"tid":""}"#
        guard case .success(.location(let fix)) = OwnTracksPayload.parse(Array(payload.utf8), opener: nil) else {
            Issue.record("not read as a location")
            return
        }
        #expect(fix.accuracy == nil && fix.battery == nil && fix.trackerID == nil)
    }

    @Test("the key is the secret's bytes padded with zeros to 32, a longer one cut at 32")
    func key() {
        #expect(OwnTracksKey.derive(Secret("abc")) == [97, 98, 99] + [UInt8](repeating: 0, count: 29))
        #expect(OwnTracksKey.derive(Secret(String(repeating: "k", count: 40))) == [UInt8](repeating: 107, count: 32))
    }

    /// Many thousands of mutated and random payloads, from one seed: each is a location in range,
    /// another type, or dropped with a reason; never a crash.
    @Test("fuzz: mutated and random payloads end as a fix in range, an ignored type or a drop reason")
    func fuzz() throws {
        let seed: UInt64 = 0x0A11_7AC5
        var random = SplitMix64(seed: seed)
        let opener = XOROpener()
        let names = [
            "location-5s.json", "location-sk.json", "location-short.json", "location-lat-missing.json", "transition.json",
            "waypoint-circular.json", "lwt.json",
        ]
        var seeds = try names.map { try Fixture.ownTracks($0) }
        seeds += seeds.prefix(3).map { opener.encryptedPayload($0) }
        let tokens = Array(#"{}[]",:0123456789.-eE+ nultrfas_typelocationencrypteddatalatlontstaccbatttid\"#.utf8)
        var outcomes: [String: Int] = [:]
        for round in 0..<20_000 {
            var payload: [UInt8]
            if round % 10 == 9 {
                payload = (0..<random.int(0...300)).map { _ in random.byte() }
            } else {
                payload = random.pick(seeds)
                for _ in 0..<random.int(1...6) {
                    let at = payload.isEmpty ? 0 : random.int(0...(payload.count - 1))
                    switch random.int(0...4) {
                    case 0 where !payload.isEmpty: payload[at] = random.byte()
                    case 1 where !payload.isEmpty: payload[at] = random.pick(tokens)
                    case 2 where !payload.isEmpty: payload.remove(at: at)
                    case 3: payload.insert(random.pick(tokens), at: at)
                    default: payload = Array(payload.prefix(at))
                    }
                }
            }
            switch OwnTracksPayload.parse(payload, opener: opener) {
            case .success(.location(let fix)):
                #expect(fix.coordinate.isValid, "seed \(seed) round \(round)")
                #expect(fix.accuracy.map { $0.isFinite && $0 >= 0 } ?? true, "seed \(seed) round \(round)")
                outcomes["location", default: 0] += 1
            case .success(.ignored):
                outcomes["ignored", default: 0] += 1
            case .failure(let reason):
                #expect(!reason.description.isEmpty, "seed \(seed) round \(round)")
                outcomes["dropped", default: 0] += 1
            }
        }
        // The mutations reach every outcome, or the fuzzing proves little.
        #expect(outcomes["location", default: 0] > 100 && outcomes["ignored", default: 0] > 10 && outcomes["dropped", default: 0] > 1000)
    }
}

@Suite("MQTT topic filters: the OwnTracks subscriptions")
struct MQTTTopicFilterTests {
    @Test("a filter's wildcards are whole levels, # last")
    func problems() {
        #expect(MQTTTopicFilter.problem("owntracks/+/+") == nil)
        #expect(MQTTTopicFilter.problem("owntracks/#") == nil)
        #expect(MQTTTopicFilter.problem("") != nil)
        #expect(MQTTTopicFilter.problem("owntracks/a+/b") != nil)
        #expect(MQTTTopicFilter.problem("owntracks/#/x") != nil)
    }

    @Test("a topic matches a filter level by level; # matches the parent too")
    func matches() {
        #expect(MQTTTopicFilter.matches("owntracks/alice/phone", filter: "owntracks/+/+"))
        #expect(!MQTTTopicFilter.matches("owntracks/alice/phone/event", filter: "owntracks/+/+"))
        #expect(MQTTTopicFilter.matches("owntracks/alice/phone/event", filter: "owntracks/#"))
        #expect(MQTTTopicFilter.matches("owntracks", filter: "owntracks/#"))
        #expect(!MQTTTopicFilter.matches("weatherd/van/request", filter: "owntracks/#"))
        #expect(!MQTTTopicFilter.matches("$SYS/broker", filter: "#"))
    }

    @Test("a filter overlaps weatherd's own P/# when some topic matches both")
    func overlaps() {
        #expect(MQTTTopicFilter.overlaps("#", prefix: "weatherd"))
        #expect(MQTTTopicFilter.overlaps("+/+/+", prefix: "weatherd"))
        #expect(MQTTTopicFilter.overlaps("weatherd/+/request", prefix: "weatherd"))
        #expect(MQTTTopicFilter.overlaps("fleet/+", prefix: "fleet/weatherd"), "P/# matches P itself")
        #expect(!MQTTTopicFilter.overlaps("fleet/vans/#", prefix: "fleet/weatherd"))
        #expect(MQTTTopicFilter.overlaps("fleet/#", prefix: "fleet/weatherd"))
        #expect(!MQTTTopicFilter.overlaps("owntracks/+/+", prefix: "weatherd"))
    }

    @Test("the sender of a topic is its last two levels")
    func sender() {
        #expect(OwnTracksService.sender(ofTopic: "owntracks/alice/phone")! == ("alice", "phone"))
        #expect(OwnTracksService.sender(ofTopic: "fleet/eu/van-12/tracker")! == ("van-12", "tracker"))
        #expect(OwnTracksService.sender(ofTopic: "owntracks") == nil)
        #expect(OwnTracksService.sender(ofTopic: "owntracks//phone") == nil)
    }
}
