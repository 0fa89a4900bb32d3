import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("DeviceTracker: an OwnTracks device's weather looked up again only once it moved, dropped after its ttl, event by event")
struct DeviceTrackerTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let here = Coordinate(lat: 52.3700, lon: 4.8900)

    /// The contract's defaults: 1000 m, 6 hours.
    static func tracker() -> DeviceTracker { DeviceTracker(settings: .init(distance: 1000, ttl: .seconds(6 * 3600))) }

    func fix(_ coordinate: Coordinate = here, at seconds: Double = 0, accuracy: Double? = 10) -> OwnTracksLocation {
        OwnTracksLocation(
            coordinate: coordinate, accuracy: accuracy, at: Self.start.addingTimeInterval(seconds), trackerID: "AL", battery: 80)
    }

    /// `metres` north of `here`.
    func north(_ metres: Double) -> Coordinate {
        Coordinate(lat: Self.here.lat + metres / 111_195, lon: Self.here.lon)
    }

    func now(_ seconds: Double) -> Date { Self.start.addingTimeInterval(seconds) }

    @Test("a new device is looked up at its fix; until the weather comes it has no feature")
    func newDevice() {
        var tracker = Self.tracker()
        #expect(tracker.receive(user: "alice", device: "phone", fix(), now: now(1)) == .lookUp(Self.here))
        #expect(tracker.features.isEmpty)
        let landed = tracker.answered("device:alice/phone", at: Self.here, sampleObservation("Amsterdam", id: 1))
        #expect(landed)
        let feature = tracker.features.first
        #expect(feature?.id == "device:alice/phone")
        #expect(feature?.source == .device)
        #expect(feature?.coordinate == Self.here)
        #expect(feature?.device?.user == "alice" && feature?.device?.device == "phone" && feature?.device?.trackerID == "AL")
        #expect(feature?.device?.horizontalError == 10 && feature?.device?.battery == 80 && feature?.device?.at == now(0))
    }

    @Test("fixes within device_distance move the feature and keep its weather; the first beyond it is looked up")
    func moves() {
        var tracker = Self.tracker()
        _ = tracker.receive(user: "alice", device: "phone", fix(), now: now(0))
        _ = tracker.answered("device:alice/phone", at: Self.here, sampleObservation("Amsterdam", id: 1))
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(400), at: 30), now: now(30)) == .moved)
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(990), at: 60), now: now(60)) == .moved)
        #expect(tracker.features.first?.coordinate == north(990))
        #expect(tracker.features.first?.observation.name == "Amsterdam")
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(1010), at: 90), now: now(90)) == .lookUp(north(1010)))
    }

    @Test("while a lookup is in flight no other is asked; a failed one is asked again at the next fix")
    func inFlight() {
        var tracker = Self.tracker()
        _ = tracker.receive(user: "alice", device: "phone", fix(), now: now(0))
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(5000), at: 30), now: now(30)) == .moved)
        tracker.failed("device:alice/phone", at: Self.here)
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(5000), at: 60), now: now(60)) == .lookUp(north(5000)))
        // The answer for the older point no longer lands.
        let landed = tracker.answered("device:alice/phone", at: Self.here, sampleObservation("Amsterdam", id: 1))
        #expect(!landed)
    }

    @Test("a fix older than the device's latest, or older than device_ttl, is not taken")
    func tooOld() {
        var tracker = Self.tracker()
        _ = tracker.receive(user: "alice", device: "phone", fix(at: 100), now: now(100))
        #expect(tracker.receive(user: "alice", device: "phone", fix(north(5000), at: 50), now: now(110)) == .tooOld)
        #expect(tracker.receive(user: "bob", device: "van", fix(at: 0), now: now(6 * 3600)) == .tooOld)
        #expect(tracker.devices.count == 1)
    }

    @Test("a device leaves device_ttl after its latest fix's own time, not before")
    func expiry() {
        var tracker = Self.tracker()
        _ = tracker.receive(user: "alice", device: "phone", fix(at: 0), now: now(5))
        _ = tracker.receive(user: "bob", device: "van", fix(at: 600), now: now(605))
        #expect(tracker.nextExpiry == now(6 * 3600))
        #expect(tracker.expire(now: now(6 * 3600 - 1)).isEmpty)
        #expect(tracker.expire(now: now(6 * 3600)) == ["device:alice/phone"])
        #expect(tracker.nextExpiry == now(6 * 3600 + 600))
        #expect(tracker.expire(now: now(7 * 3600)) == ["device:bob/van"])
        #expect(tracker.nextExpiry == nil)
    }

    @Test("a thousand devices parked in one cell: one lookup each at first, none for their later fixes")
    func fleet() {
        var tracker = Self.tracker()
        var lookups = 0
        for round in 0..<10 {
            for device in 0..<1000 {
                let decision = tracker.receive(
                    user: "fleet", device: "v\(device)", fix(north(Double(device % 7)), at: Double(round * 30)),
                    now: now(Double(round * 30)))
                if case .lookUp(let point) = decision {
                    lookups += 1
                    _ = tracker.answered("device:fleet/v\(device)", at: point, sampleObservation("Depot", id: 1))
                }
            }
        }
        #expect(lookups == 1000)
        #expect(tracker.features.count == 1000)
    }
}

@Suite("DropWarnings: one warning per source a minute, saying how many were dropped quietly")
struct DropWarningsTests {
    @Test("the first drop warns, the next within the interval are quiet, the first after it says how many")
    func rateLimited() {
        var warnings = DropWarnings<String>(interval: .seconds(60))
        let t0 = DaemonClock.Instant(offset: .seconds(100))
        #expect(warnings.dropped(from: "MQTT", now: t0) == .warn(suppressed: 0))
        #expect(warnings.dropped(from: "MQTT", now: t0.advanced(by: .seconds(1))) == .quiet)
        #expect(warnings.dropped(from: "MQTT", now: t0.advanced(by: .seconds(59))) == .quiet)
        #expect(warnings.dropped(from: "HTTP", now: t0.advanced(by: .seconds(59))) == .warn(suppressed: 0))
        #expect(warnings.dropped(from: "MQTT", now: t0.advanced(by: .seconds(60))) == .warn(suppressed: 2))
        #expect(warnings.dropped(from: "MQTT", now: t0.advanced(by: .seconds(61))) == .quiet)
    }
}
