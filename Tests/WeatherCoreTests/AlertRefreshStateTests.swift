import Foundation
import Testing

@testable import WeatherCore

@Suite("AlertRefreshState: when alerts are asked and what is kept, event by event")
struct AlertRefreshStateTests {
    static let settings = AlertRefreshState.Settings(
        refresh: .seconds(300), requestsPerMinute: 3, zoneTTL: .seconds(3600), outsideHold: .seconds(86_400))
    static let norman = AlertCell(Coordinate(lat: 35.35, lon: -97.48))
    static let portland = AlertCell(Coordinate(lat: 45.52, lon: -122.68))
    static let toronto = AlertCell(Coordinate(lat: 43.65, lon: -79.38))

    /// The daemon's clock `seconds` after the start.
    static func at(_ seconds: Int) -> DaemonClock.Instant { DaemonClock.Instant(offset: .seconds(seconds)) }
    /// The wall clock `seconds` after the start.
    static func wall(_ seconds: Int) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds)) }

    static func alert(
        _ id: String, _ severity: AlertSeverity = .moderate, endsAt seconds: Int? = 3600, area: AlertArea? = nil,
        zones: [String] = []
    ) -> Alert {
        Alert(
            id: id, event: "Event \(id)", severity: severity, ends: seconds.map(wall), provider: "nws", area: area,
            zones: zones)
    }

    static let square = AlertArea(polygons: [
        [
            [
                Coordinate(lat: 35, lon: -98), Coordinate(lat: 35, lon: -97), Coordinate(lat: 36, lon: -97), Coordinate(lat: 35, lon: -98),
            ]
        ]
    ])

    @Test("a new cell is asked at once, then again only after alerts.refresh")
    func refreshTimer() {
        var state = AlertRefreshState(settings: Self.settings)
        #expect(state.alerts(at: Self.norman) == nil)
        state.track([Self.norman], now: Self.at(0))
        #expect(state.requests(now: Self.at(0)) == [.cell(Self.norman)])
        #expect(state.requests(now: Self.at(0)) == [], "in flight: not asked twice")
        #expect(state.alerts(at: Self.norman) == .init(alerts: nil, stale: false), "null while not known yet")
        do {
            let changed = state.answered(Self.norman, alerts: [], now: Self.at(1), wallNow: Self.wall(1))
            #expect(changed)
        }
        #expect(state.alerts(at: Self.norman) == .init(alerts: [], stale: false), "[] when asked and there are none")
        #expect(state.nextWake(now: Self.at(1), wallNow: Self.wall(1)) == Self.at(301))
        #expect(state.requests(now: Self.at(300)) == [])
        #expect(state.requests(now: Self.at(301)) == [.cell(Self.norman)])
    }

    @Test("a failed refresh keeps the last alerts, marked stale; the next answer clears the mark")
    func staleOnFailure() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        _ = state.answered(Self.norman, alerts: [Self.alert("a")], now: Self.at(0), wallNow: Self.wall(0))
        _ = state.requests(now: Self.at(300))
        do {
            let changed = state.failed(Self.norman, .unavailable("HTTP 503"), now: Self.at(300), wallNow: Self.wall(300))
            #expect(changed)
        }
        #expect(state.alerts(at: Self.norman) == .init(alerts: [Self.alert("a")], stale: true))
        #expect(
            state.status("nws", now: Self.at(300), wallNow: Self.wall(300)) == ServiceStatus(name: "nws", usable: false, error: "HTTP 503"))
        #expect(state.requests(now: Self.at(305)) == [], "backing off")
        #expect(state.requests(now: Self.at(310)) == [.cell(Self.norman)], "asked again after the first backoff of 10 s")
        do {
            let changed = state.answered(Self.norman, alerts: [Self.alert("a")], now: Self.at(311), wallNow: Self.wall(311))
            #expect(changed)
        }
        #expect(state.alerts(at: Self.norman) == .init(alerts: [Self.alert("a")], stale: false))
        #expect(state.status("nws", now: Self.at(311), wallNow: Self.wall(311)).usable)
    }

    @Test("a 429 blocks every request for its Retry-After, and state.services says until when")
    func rateLimited() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman, Self.portland], now: Self.at(0))
        #expect(state.requests(now: Self.at(0)) == [.cell(Self.norman), .cell(Self.portland)])
        _ = state.failed(Self.norman, .rateLimited(retryAfter: .seconds(30)), now: Self.at(1), wallNow: Self.wall(1))
        _ = state.failed(Self.portland, .unavailable("timeout"), now: Self.at(1), wallNow: Self.wall(1))
        let status = state.status("nws", now: Self.at(2), wallNow: Self.wall(2))
        #expect(!status.usable)
        #expect(status.blockedUntil == Self.wall(31))
        #expect(state.requests(now: Self.at(20)) == [])
        #expect(state.requests(now: Self.at(31)).count == 1, "the block is over; the budget of 3 a minute has room for one")
        #expect(state.requests(now: Self.at(61)).count == 1)
    }

    @Test("the budget: at most requests_per_minute a minute, the rest when it frees")
    func budget() {
        var state = AlertRefreshState(settings: Self.settings)
        let cells = (0..<5).map { AlertCell(Coordinate(lat: 35 + Double($0) / 10, lon: -97)) }
        state.track(Set(cells), now: Self.at(0))
        #expect(state.requests(now: Self.at(0)).count == 3)
        #expect(state.requests(now: Self.at(30)).isEmpty)
        #expect(state.nextWake(now: Self.at(30), wallNow: Self.wall(30)) == Self.at(60))
        #expect(state.requests(now: Self.at(61)).count == 2)
    }

    @Test("a cell outside the provider's area is learnt and not asked again, even when it comes back to the map")
    func outside() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.toronto], now: Self.at(0))
        #expect(state.requests(now: Self.at(0)) == [.cell(Self.toronto)])
        _ = state.failed(Self.toronto, .notFound(message: "outside"), now: Self.at(1), wallNow: Self.wall(1))
        #expect(state.alerts(at: Self.toronto) == nil, "null outside the area")
        #expect(state.isOutside(Self.toronto))
        #expect(state.status("nws", now: Self.at(1), wallNow: Self.wall(1)).usable, "not a failure of the NWS")
        #expect(state.requests(now: Self.at(1000)) == [])
        state.track([], now: Self.at(2000))
        state.track([Self.toronto], now: Self.at(3000))
        #expect(state.requests(now: Self.at(3000)) == [], "still known to be outside")
        #expect(state.requests(now: Self.at(86_401)) == [.cell(Self.toronto)], "asked again after the hold")
    }

    @Test("an alert is dropped at its ends, else its expires; the wake-up comes at that moment")
    func expiry() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        var expiring = Self.alert("b", .minor, endsAt: nil)
        expiring.expires = Self.wall(90)
        _ = state.answered(
            Self.norman, alerts: [Self.alert("a", .severe, endsAt: 60), expiring, Self.alert("c", .extreme, endsAt: 400)],
            now: Self.at(0), wallNow: Self.wall(0))
        #expect(state.alerts(at: Self.norman)?.alerts?.map(\.id) == ["c", "a", "b"], "most severe first")
        #expect(state.nextWake(now: Self.at(0), wallNow: Self.wall(0)) == Self.at(60))
        do {
            let changed = state.expire(wallNow: Self.wall(59))
            #expect(!changed)
        }
        do {
            let changed = state.expire(wallNow: Self.wall(60))
            #expect(changed)
        }
        #expect(state.alerts(at: Self.norman)?.alerts?.map(\.id) == ["c", "b"])
        do {
            let changed = state.expire(wallNow: Self.wall(90))
            #expect(changed)
        }
        #expect(state.alerts(at: Self.norman)?.alerts?.map(\.id) == ["c"])
    }

    @Test("an answer holding an alert already over leaves it out")
    func overOnArrival() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        _ = state.answered(Self.norman, alerts: [Self.alert("a", endsAt: -1)], now: Self.at(0), wallNow: Self.wall(0))
        #expect(state.alerts(at: Self.norman)?.alerts == [])
    }

    @Test("a cell that leaves the map is forgotten; its late answer changes nothing")
    func untracked() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        state.track([Self.portland], now: Self.at(1))
        do {
            let changed = state.answered(Self.norman, alerts: [Self.alert("a")], now: Self.at(2), wallNow: Self.wall(2))
            #expect(!changed)
        }
        #expect(state.alerts(at: Self.norman) == nil)
        #expect(state.requests(now: Self.at(2)) == [.cell(Self.portland)])
    }

    @Test("areas: its own polygon at once; a zone-based alert's zones asked once each, kept for zoneTTL")
    func areas() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman, Self.portland], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        let zoned = Self.alert("z", .severe, zones: ["https://nws/zones/forecast/ORZ001", "https://nws/zones/forecast/ORZ006"])
        _ = state.answered(Self.norman, alerts: [Self.alert("p", .minor, area: Self.square)], now: Self.at(1), wallNow: Self.wall(1))
        _ = state.answered(Self.portland, alerts: [zoned], now: Self.at(1), wallNow: Self.wall(1))
        #expect(state.areas.map(\.alert.id) == ["p"])
        #expect(
            state.requests(now: Self.at(61)) == [.zone("https://nws/zones/forecast/ORZ001"), .zone("https://nws/zones/forecast/ORZ006")])
        #expect(state.requests(now: Self.at(62)) == [], "in flight")
        do {
            let changed = state.zoneAnswered("https://nws/zones/forecast/ORZ001", area: Self.square, now: Self.at(62))
            #expect(changed)
        }
        do {
            let changed = state.zoneAnswered("https://nws/zones/forecast/ORZ006", area: nil, now: Self.at(62))
            #expect(!changed)
        }
        #expect(state.areas.map(\.alert.id) == ["z", "p"], "most severe first")
        #expect(state.areas.first?.area == Self.square)
        // The cells' refresh asks the cells again, not the zones.
        #expect(Set(state.requests(now: Self.at(301))) == [.cell(Self.norman), .cell(Self.portland)])
        _ = state.answered(Self.portland, alerts: [zoned], now: Self.at(302), wallNow: Self.wall(302))
        #expect(state.requests(now: Self.at(3663)).contains(.zone("https://nws/zones/forecast/ORZ001")), "after zoneTTL")
    }

    @Test("new settings: the next refresh waits the new interval")
    func reconfigure() {
        var state = AlertRefreshState(settings: Self.settings)
        state.track([Self.norman], now: Self.at(0))
        _ = state.requests(now: Self.at(0))
        var settings = Self.settings
        settings.refresh = .seconds(60)
        state.apply(settings)
        _ = state.answered(Self.norman, alerts: [], now: Self.at(1), wallNow: Self.wall(1))
        #expect(state.nextWake(now: Self.at(1), wallNow: Self.wall(1)) == Self.at(61))
    }
}
