import Foundation
import Testing

@testable import WeatherCore

@Suite("LocationFusion: one rule for every source of location, event by event")
struct LocationFusionTests {
    /// The contract's defaults: 100 m for gpsd and OwnTracks, 5000 m for location.report, GeoClue's
    /// 25 km; max_age 2 minutes, hold 30 seconds.
    static let settings = LocationFusion.Settings(
        maxHorizontalError: [.gpsd: 100, .owntracks: 100, .client: 5000, .geoclue: 25_000], maxAge: .seconds(120),
        hold: .seconds(30))

    /// The time `seconds` after the start of the test.
    static func t(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

    static func fix(
        _ source: LocationFix.Source, at seconds: Double, error: Double = 10, lat: Double = 51.5, device: String? = nil
    ) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(lat: lat, lon: -0.12), horizontalError: error, at: t(seconds), source: source, device: device)
    }

    private func decision(_ verdict: LocationFusion.Verdict?, changed: Bool, expiry: Double?) -> LocationFusion.Decision {
        LocationFusion.Decision(verdict: verdict, changed: changed, nextExpiry: expiry.map(Self.t))
    }

    @Test("the first fix within its limit is the fused location until it is max_age old")
    func firstFix() {
        var fusion = LocationFusion(settings: Self.settings)
        let fix = Self.fix(.gpsd, at: 0)
        #expect(fusion.receive(fix, now: Self.t(0)) == decision(.accepted, changed: true, expiry: 120))
        #expect(fusion.location == fix)
    }

    @Test("a fix above its source's limit is inaccurate; one exactly at it is taken")
    func inaccurate() {
        var fusion = LocationFusion(settings: Self.settings)
        #expect(
            fusion.receive(Self.fix(.gpsd, at: 0, error: 100.5), now: Self.t(0))
                == decision(.rejected(.inaccurate), changed: false, expiry: nil))
        #expect(fusion.location == nil)
        #expect(fusion.receive(Self.fix(.gpsd, at: 1, error: 100), now: Self.t(1)) == decision(.accepted, changed: true, expiry: 121))
    }

    @Test("an unknown (NaN), infinite or negative error is inaccurate", arguments: [Double.nan, .infinity, -1])
    func unknownError(error: Double) {
        var fusion = LocationFusion(settings: Self.settings)
        #expect(fusion.receive(Self.fix(.client, at: 0, error: error), now: Self.t(0)).verdict == .rejected(.inaccurate))
        #expect(fusion.location == nil)
    }

    @Test("each kind has its own limit: a report of 3 km is taken, a gpsd fix of 3 km is not")
    func limitsPerKind() {
        var fusion = LocationFusion(settings: Self.settings)
        #expect(fusion.receive(Self.fix(.gpsd, at: 0, error: 3000), now: Self.t(0)).verdict == .rejected(.inaccurate))
        #expect(fusion.receive(Self.fix(.owntracks, at: 0, error: 3000), now: Self.t(0)).verdict == .rejected(.inaccurate))
        #expect(fusion.receive(Self.fix(.browser, at: 0, error: 3000), now: Self.t(0)).verdict == .accepted)
        var desktop = LocationFusion(settings: Self.settings)
        #expect(desktop.receive(Self.fix(.geoclue, at: 1, error: 20_000), now: Self.t(1)).verdict == .accepted)
    }

    @Test("a kind without a limit takes no fix")
    func kindWithoutLimit() {
        var fusion = LocationFusion(settings: .init(maxHorizontalError: [.gpsd: 100], maxAge: .seconds(120), hold: .seconds(30)))
        #expect(fusion.receive(Self.fix(.geoclue, at: 0, error: 1), now: Self.t(0)).verdict == .rejected(.inaccurate))
    }

    @Test("a fix older than max_age is too old; one exactly max_age old is taken, and expires at once")
    func tooOld() {
        var fusion = LocationFusion(settings: Self.settings)
        #expect(
            fusion.receive(Self.fix(.owntracks, at: 0), now: Self.t(120.5)) == decision(.rejected(.tooOld), changed: false, expiry: nil))
        #expect(fusion.receive(Self.fix(.owntracks, at: 1), now: Self.t(121)) == decision(.accepted, changed: true, expiry: 121))
        #expect(fusion.expire(now: Self.t(121)) == decision(nil, changed: true, expiry: nil))
        #expect(fusion.location == nil)
    }

    @Test("a time in the future counts as now")
    func futureCountsAsNow() {
        var fusion = LocationFusion(settings: Self.settings)
        #expect(fusion.receive(Self.fix(.client, at: 3600), now: Self.t(10)) == decision(.accepted, changed: true, expiry: 130))
        #expect(fusion.location?.at == Self.t(10))
        // So a source whose clock runs ahead does not lock out its own later fixes.
        #expect(fusion.receive(Self.fix(.client, at: 3601), now: Self.t(11)).verdict == .accepted)
    }

    @Test("a kind's newer fix always replaces its own, even a less accurate one within hold (a moving receiver)")
    func ownNewerReplaces() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 5), now: Self.t(0))
        let moved = Self.fix(.gpsd, at: 1, error: 80, lat: 51.6)
        #expect(fusion.receive(moved, now: Self.t(1)) == decision(.accepted, changed: true, expiry: 121))
        #expect(fusion.location == moved)
    }

    @Test("browser and client are one kind: a client report replaces a browser one within hold")
    func browserIsClient() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.browser, at: 0, error: 20), now: Self.t(0))
        #expect(fusion.location?.source == .browser, "the source given is kept")
        #expect(fusion.receive(Self.fix(.client, at: 5, error: 2000), now: Self.t(5)).verdict == .accepted)
        #expect(fusion.location?.source == .client)
    }

    @Test("a kind's fix older than its own latest is too old")
    func ownOlderIsTooOld() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.owntracks, at: 10), now: Self.t(10))
        #expect(
            fusion.receive(Self.fix(.owntracks, at: 5, lat: 52), now: Self.t(11))
                == decision(.rejected(.tooOld), changed: false, expiry: 130))
        #expect(fusion.location?.coordinate.lat == 51.5)
    }

    @Test("the same fix again is taken but changes nothing")
    func sameFixAgain() {
        var fusion = LocationFusion(settings: Self.settings)
        let fix = Self.fix(.gpsd, at: 0)
        _ = fusion.receive(fix, now: Self.t(0))
        #expect(fusion.receive(fix, now: Self.t(1)) == decision(.accepted, changed: false, expiry: 120))
    }

    @Test("another kind's newer, less accurate fix is held while the fused fix is younger than hold")
    func heldWithinHold() {
        var fusion = LocationFusion(settings: Self.settings)
        let gps = Self.fix(.gpsd, at: 0, error: 5)
        _ = fusion.receive(gps, now: Self.t(0))
        #expect(
            fusion.receive(Self.fix(.browser, at: 29, error: 40), now: Self.t(29))
                == decision(.rejected(.held), changed: false, expiry: 120))
        #expect(fusion.location == gps)
    }

    @Test("once the fused fix is hold old, another kind's newer, less accurate fix replaces it")
    func replacedAfterHold() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 5), now: Self.t(0))
        let report = Self.fix(.browser, at: 30, error: 40)
        #expect(fusion.receive(report, now: Self.t(30)) == decision(.accepted, changed: true, expiry: 150))
        #expect(fusion.location == report)
    }

    @Test("another kind's newer fix that is as accurate or more replaces the fused fix within hold", arguments: [5.0, 4.0])
    func asAccurateReplaces(error: Double) {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 5), now: Self.t(0))
        #expect(
            fusion.receive(Self.fix(.owntracks, at: 1, error: error), now: Self.t(1)) == decision(.accepted, changed: true, expiry: 121))
        #expect(fusion.location?.source == .owntracks)
    }

    @Test("another kind's fix older than the fused one is too old")
    func otherOlderIsTooOld() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 10, error: 50), now: Self.t(10))
        #expect(
            fusion.receive(Self.fix(.owntracks, at: 5, error: 1), now: Self.t(11))
                == decision(.rejected(.tooOld), changed: false, expiry: 130))
        #expect(fusion.location?.source == .gpsd)
    }

    @Test("a wake-up before the fused fix is max_age old changes nothing")
    func earlyWakeup() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0), now: Self.t(0))
        #expect(fusion.expire(now: Self.t(119.9)) == decision(nil, changed: false, expiry: 120))
        #expect(fusion.location != nil)
    }

    @Test("with no fix younger than max_age the fused location is null")
    func expiresToNull() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0), now: Self.t(0))
        #expect(fusion.expire(now: Self.t(120)) == decision(nil, changed: true, expiry: nil))
        #expect(fusion.location == nil)
        #expect(fusion.expire(now: Self.t(200)) == decision(nil, changed: false, expiry: nil))
    }

    @Test("when the fused fix expires, a held fix still younger than max_age takes its place")
    func heldFixTakesOverAtExpiry() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 5), now: Self.t(0))
        let report = Self.fix(.browser, at: 20, error: 40)
        #expect(fusion.receive(report, now: Self.t(20)).verdict == .rejected(.held))
        #expect(fusion.expire(now: Self.t(120)) == decision(nil, changed: true, expiry: 140))
        #expect(fusion.location == report)
    }

    @Test("at an expiry the newest remaining fix wins, and none that is max_age old itself")
    func newestRemainingAtExpiry() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.geoclue, at: 0, error: 3000), now: Self.t(0))
        _ = fusion.receive(Self.fix(.client, at: 10, error: 1000), now: Self.t(10))
        _ = fusion.receive(Self.fix(.gpsd, at: 20, error: 5), now: Self.t(20))
        #expect(fusion.location?.source == .gpsd)
        // The client's fix expires before gpsd's, GeoClue's before both: nothing is left.
        #expect(fusion.expire(now: Self.t(140)) == decision(nil, changed: true, expiry: nil))

        var later = LocationFusion(settings: Self.settings)
        _ = later.receive(Self.fix(.owntracks, at: 20, error: 5), now: Self.t(20))
        #expect(later.receive(Self.fix(.geoclue, at: 30, error: 3000), now: Self.t(30)).verdict == .rejected(.held))
        #expect(later.receive(Self.fix(.client, at: 10, error: 1000), now: Self.t(31)).verdict == .rejected(.tooOld))
        // The client's fix expired at 130; GeoClue's is 110 s old.
        #expect(later.expire(now: Self.t(140)) == decision(nil, changed: true, expiry: 150))
        #expect(later.location?.source == .geoclue)
    }

    @Test("a fix that comes after the fused one expired (no wake-up yet) replaces it as if it were the first")
    func fixAfterUnnoticedExpiry() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 1), now: Self.t(0))
        let report = Self.fix(.client, at: 130, error: 4000)
        #expect(fusion.receive(report, now: Self.t(130)) == decision(.accepted, changed: true, expiry: 250))
        #expect(fusion.location == report)
    }

    @Test("a fix held behind a fix that has just expired is taken (the expiry comes first)")
    func heldBehindExpired() {
        var fusion = LocationFusion(
            settings: .init(maxHorizontalError: [.gpsd: 100, .client: 5000], maxAge: .seconds(20), hold: .seconds(30)))
        _ = fusion.receive(Self.fix(.gpsd, at: 0, error: 1), now: Self.t(0))
        #expect(fusion.receive(Self.fix(.client, at: 25, error: 40), now: Self.t(25)) == decision(.accepted, changed: true, expiry: 45))
    }

    @Test("the OwnTracks device is kept with its fix")
    func device() {
        var fusion = LocationFusion(settings: Self.settings)
        _ = fusion.receive(Self.fix(.owntracks, at: 0, device: "alice/phone"), now: Self.t(0))
        #expect(fusion.location?.device == "alice/phone")
        #expect(fusion.location?.json["device"] == .string("alice/phone"))
        #expect(fusion.location?.json["source"] == .string("owntracks"))
    }
}
