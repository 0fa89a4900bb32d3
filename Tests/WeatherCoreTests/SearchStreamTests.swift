import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// ``SearchStream`` event by event: no actor, no clock, no upstream; the time is given with each event.
@Suite("SearchStream: the search stream's rules, event by event")
struct SearchStreamTests {
    typealias Effect = SearchStream.Effect

    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// The time `seconds` after the start, on both clocks.
    static func at(_ seconds: Double) -> SearchStream.Now {
        SearchStream.Now(
            wall: start.addingTimeInterval(seconds), instant: DaemonClock.Instant(offset: .milliseconds(Int64(seconds * 1000))))
    }

    static func stream(cities: [String] = []) -> SearchStream {
        SearchStream(
            cities: cities, gps: GPSStatus(enabled: true, connected: true), budget: BudgetStatus(requestsPerMinute: 60), providers: [],
            now: start)
    }

    static func feature(_ observation: WeatherObservation, source: FeatureSource = .text) -> WeatherFeature {
        WeatherFeature(observation: observation, source: source)
    }

    static func states(_ effects: [Effect]) -> [DaemonState] {
        effects.compactMap { if case .publishState(let state) = $0 { state } else { nil } }
    }

    static func overlays(_ effects: [Effect]) -> [Overlays] {
        effects.compactMap { if case .publishOverlays(let overlays) = $0 { overlays } else { nil } }
    }

    // MARK: Start, inputs, latest wins

    @Test("at start with cities: loading, running with one lookup per city, empty overlays seq 0; without: empty")
    func start() {
        let stream = Self.stream(cities: ["London", "Zocca"])
        let state = Self.states(stream.startEffects)
        #expect(state.map(\.phase) == [.loading] && state.map(\.pending) == [2] && state.map(\.input) == [.cities])
        #expect(Self.overlays(stream.startEffects) == [Overlays(seq: 0, focus: nil, features: [])])
        let none = Self.states(Self.stream().startEffects)
        #expect(none.map(\.phase) == [.empty] && none.map(\.pending) == [0] && none.map(\.input) == [nil])
    }

    @Test("a text input: loading and running at once; its outcome lands, populated, overlays focused on it")
    func textInput() throws {
        var stream = Self.stream()
        let (ticket, began) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(1))
        #expect(Self.states(began).map(\.phase) == [.loading] && Self.states(began).map(\.pending) == [1])
        #expect(Self.states(began).first?.updatedAt == Self.at(1).wall)
        let london = Self.feature(try Fixture.londonObservation())
        let (landed, settled) = stream.settle(ticket, features: [london], focus: london.coordinate, failure: nil, at: Self.at(2))
        #expect(landed)
        #expect(Self.overlays(settled) == [Overlays(seq: 1, focus: london.coordinate, features: [london])])
        #expect(Self.states(settled).map(\.phase) == [.populated] && Self.states(settled).map(\.pending) == [0])
        // The overlays go out before the state that says the input settled.
        #expect(settled.firstIndex { if case .publishOverlays = $0 { true } else { false } } == 0)
    }

    @Test("latest wins: an older input that settles last lands nowhere; its failure does not make the phase error")
    func latestWins() throws {
        var stream = Self.stream()
        let (older, _) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(1))
        let (newer, _) = stream.begin(.text(city: "Zocca"), lookups: 1, at: Self.at(2))
        #expect(!stream.isCurrent(older) && stream.isCurrent(newer))
        let zocca = Self.feature(try Fixture.zoccaObservation())
        let (newerLanded, _) = stream.settle(newer, features: [zocca], focus: zocca.coordinate, failure: nil, at: Self.at(3))
        #expect(newerLanded)
        let (olderLanded, effects) = stream.settle(
            older, features: [], focus: nil, failure: WeatherError(.upstreamUnavailable, "down"), at: Self.at(4))
        #expect(!olderLanded)
        #expect(Self.overlays(effects).isEmpty, "no overlays change for a superseded input")
        #expect(Self.states(effects).map(\.phase) == [.populated] && Self.states(effects).map(\.pending) == [0])
        #expect(stream.overlays.features == [zocca])
    }

    @Test("a not_found outcome is empty without error; another failure is error with it; a success clears it")
    func phases() throws {
        var stream = Self.stream()
        let (first, _) = stream.begin(.text(city: "Atlantis"), lookups: 1, at: Self.at(1))
        _ = stream.settle(first, features: [], focus: nil, failure: .notFound("Atlantis"), at: Self.at(2))
        #expect(stream.state.phase == .empty && stream.state.error == nil)
        let (second, _) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(3))
        _ = stream.settle(second, features: [], focus: nil, failure: WeatherError(.upstreamUnavailable, "down"), at: Self.at(4))
        #expect(stream.state.phase == .error && stream.state.error?.code == .upstreamUnavailable)
        let (third, _) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(5))
        #expect(stream.state.phase == .loading && stream.state.error == nil)
        let london = Self.feature(try Fixture.londonObservation())
        _ = stream.settle(third, features: [london], focus: london.coordinate, failure: nil, at: Self.at(6))
        #expect(stream.state.phase == .populated && stream.state.error == nil)
    }

    @Test("pending: each answer settles one lookup, the last stays counted until the outcome goes out")
    func pendingCounts() {
        var stream = Self.stream()
        let (region, _) = stream.begin(.region(MapRegion(center: Coordinate(lat: 44, lon: 11))), lookups: 3, at: Self.at(1))
        #expect(stream.state.pending == 3)
        #expect(Self.states(stream.answered(region.run, at: Self.at(2))).map(\.pending) == [2])
        #expect(Self.states(stream.answered(region.run, count: 2, at: Self.at(3))).map(\.pending) == [1], "the last stays counted")
        #expect(stream.answered(region.run, at: Self.at(4)).isEmpty, "no change: no notification")
        _ = stream.settle(region, features: [], focus: nil, failure: nil, at: Self.at(5))
        #expect(stream.state.pending == 0 && !stream.state.running && stream.state.phase == .empty)
    }

    @Test("a region search in progress is cancelled by the next input, first; one that settled is not")
    func regionCancelled() {
        var stream = Self.stream()
        let region = MapRegion(center: Coordinate(lat: 44, lon: 11))
        let (first, _) = stream.begin(.region(region), lookups: 9, at: Self.at(1))
        let (second, effects) = stream.begin(.region(region), lookups: 9, at: Self.at(2))
        #expect(effects.first == .cancelRegion(generation: first.generation))
        _ = stream.settle(second, features: [], focus: nil, failure: nil, at: Self.at(3))
        let (_, afterSettled) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(4))
        #expect(!afterSettled.contains { if case .cancelRegion = $0 { true } else { false } })
        #expect(stream.textAndLocationInputs == 1 && stream.generation == 3)
    }

    @Test("a requester that went away: its lookups settle and the phase leaves loading")
    func abandoned() {
        var stream = Self.stream()
        let (ticket, _) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(1))
        let effects = stream.abandon(ticket, at: Self.at(2))
        #expect(Self.states(effects).map(\.phase) == [.empty] && Self.states(effects).map(\.pending) == [0])
    }

    // MARK: Watched cities

    @Test("a round: loading until it settles; a failed city keeps its last good feature, stale; an unchanged round is no change")
    func rounds() throws {
        var stream = Self.stream(cities: ["London"])
        let (cities, run, began) = stream.roundBegan(at: Self.at(1))
        #expect(cities == ["London"] && began.isEmpty, "the first round was counted from the start")
        let london = try Fixture.londonObservation()
        let settled = stream.roundSettled([("London", .success(london))], run: run, at: Self.at(2))
        #expect(Self.overlays(settled).map(\.seq) == [1] && Self.overlays(settled).first?.features.map(\.stale) == [false])
        #expect(Self.states(settled).map(\.phase) == [.populated] && Self.states(settled).map(\.pending) == [0])

        let (_, second, _) = stream.roundBegan(at: Self.at(3))
        let failed = stream.roundSettled([("London", .failure(WeatherError(.upstreamUnavailable, "down")))], run: second, at: Self.at(4))
        #expect(Self.overlays(failed).first?.features.map(\.stale) == [true])
        #expect(Self.states(failed).map(\.phase) == [.populated], "its stale feature is still shown")

        let (_, third, _) = stream.roundBegan(at: Self.at(5))
        let again = stream.roundSettled([("London", .failure(WeatherError(.upstreamUnavailable, "down")))], run: third, at: Self.at(6))
        #expect(Self.overlays(again).isEmpty, "no feature changed: no overlays change")
    }

    @Test("after an interactive input, rounds keep its phase and input; a city with its id appears once, as the interactive one")
    func roundAfterSearch() throws {
        var stream = Self.stream(cities: ["London"])
        let london = try Fixture.londonObservation()
        let (ticket, _) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(1))
        let searched = Self.feature(london)
        _ = stream.settle(ticket, features: [searched], focus: searched.coordinate, failure: nil, at: Self.at(2))
        let (_, run, _) = stream.roundBegan(at: Self.at(3))
        let effects = stream.roundSettled([("London", .failure(WeatherError(.upstreamUnavailable, "down")))], run: run, at: Self.at(4))
        #expect(stream.state.phase == .populated && stream.state.input == .text(city: "London"))
        #expect(Self.overlays(effects).isEmpty)
        let (_, next, _) = stream.roundBegan(at: Self.at(5))
        let round = stream.roundSettled([("London", .success(london))], run: next, at: Self.at(6))
        #expect(stream.overlays.features.map(\.source) == [.text], "one feature with London's id: the interactive one")
        #expect(Self.overlays(round).isEmpty)
    }

    @Test("a city removed takes its feature off the overlays; a city added with its feature shows it")
    func citiesChanged() throws {
        var stream = Self.stream(cities: ["London"])
        let (_, run, _) = stream.roundBegan(at: Self.at(1))
        _ = stream.roundSettled([("London", .success(try Fixture.londonObservation()))], run: run, at: Self.at(2))
        let removed = stream.citiesChanged([], at: Self.at(3))
        #expect(Self.overlays(removed).map(\.features.count) == [0])
        #expect(stream.state.input == nil && stream.state.phase == .empty)
        let zocca = Self.feature(try Fixture.zoccaObservation(), source: .city)
        let added = stream.citiesChanged(["Zocca"], lookedUp: ("Zocca", zocca), at: Self.at(4))
        #expect(Self.overlays(added).map(\.features) == [[zocca]] && stream.state.phase == .populated)
    }

    // MARK: Which state changes are news

    @Test("the providers' request counts alone are no news; a block is")
    func providers() {
        var stream = Self.stream()
        var budget = stream.state.budget
        budget.used = 5
        #expect(stream.providersChanged(budget: budget, providers: [], services: [], at: Self.at(1)).isEmpty)
        budget.blockedUntil = Self.at(60).wall
        #expect(Self.states(stream.providersChanged(budget: budget, providers: [], services: [], at: Self.at(2))).count == 1)
    }

    @Test("a service's entry that changes is news; the same entries again are not")
    func services() {
        var stream = Self.stream()
        let budget = stream.state.budget
        let failing = [ServiceStatus(name: "air-quality", usable: false, error: "HTTP 503")]
        #expect(
            Self.states(stream.providersChanged(budget: budget, providers: [], services: failing, at: Self.at(1))).map(\.services) == [
                failing
            ])
        #expect(stream.providersChanged(budget: budget, providers: [], services: failing, at: Self.at(2)).isEmpty)
    }

    @Test("devices: a layer after the watched cities, never focused, no phase or pending; the same devices again are no change")
    func devices() throws {
        var stream = Self.stream(cities: ["London"])
        let (_, run, _) = stream.roundBegan(at: Self.at(1))
        let london = try Fixture.londonObservation()
        _ = stream.roundSettled([("London", .success(london))], run: run, at: Self.at(2))
        let device = Self.feature(try Fixture.zoccaObservation(), source: .device)
        let changed = stream.devicesChanged([device])
        #expect(Self.overlays(changed).map(\.features) == [[Self.feature(london, source: .city), device]])
        #expect(Self.overlays(changed).map(\.focus) == [nil] && Self.states(changed).isEmpty)
        #expect(stream.devicesChanged([device]).isEmpty)
        #expect(Self.overlays(stream.devicesChanged([])).map(\.features) == [[Self.feature(london, source: .city)]])
    }

    @Test("alerts: the features of a known cell carry them, never focused, no state change; the same view again is no change")
    func alerts() throws {
        var stream = Self.stream(cities: ["London"])
        let (_, run, _) = stream.roundBegan(at: Self.at(1))
        let london = try Fixture.londonObservation()
        _ = stream.roundSettled([("London", .success(london))], run: run, at: Self.at(2))
        let seq = stream.overlays.seq
        let view = AlertView(cells: [AlertCell(london.coordinate): AlertRefreshState.CellAlerts(alerts: [], stale: true)])
        let changed = stream.alertsChanged(view)
        #expect(Self.overlays(changed).map(\.seq) == [seq + 1] && Self.states(changed).isEmpty)
        #expect(Self.overlays(changed).map(\.focus) == [nil])
        let feature = try #require(Self.overlays(changed).first?.features.first)
        #expect(feature.alerts == [] && feature.alertsStale)
        #expect(stream.alertsChanged(view).isEmpty)
        // A round after it keeps the alerts on the city's feature.
        let (_, again, _) = stream.roundBegan(at: Self.at(3))
        _ = stream.roundSettled([("London", .success(london))], run: again, at: Self.at(4))
        #expect(stream.overlays.features.first?.alerts == [])
        #expect(Self.overlays(stream.alertsChanged(AlertView())).first?.features.first?.alerts == nil)
    }

    static let hamilton = Coordinate(lat: -37.7848, lon: 175.3149)
    /// 50 m north of Hamilton: the same place.
    static let near = Coordinate(lat: -37.78435, lon: 175.3149)

    /// The location events a source brings: where it is, at `seconds`, as the location service reports it.
    static func report(_ source: LocationFix.Source, at seconds: Double, _ coordinate: Coordinate, into stream: inout SearchStream)
        -> [Effect]
    {
        let time = at(seconds)
        let fix = LocationFix(coordinate: coordinate, horizontalError: 10, at: time.wall, source: source)
        var gps = stream.state.gps
        if source == .gpsd { gps.lastFix = GPSFix(coordinate: coordinate, horizontalError: 10, mode: 3, at: time.wall) }
        var sources = stream.state.locationSources
        for index in sources.indices where sources[index].kind == source.kind { sources[index].lastFixAt = time.wall }
        return stream.locationChanged(gps: gps, location: fix, sources: sources, at: time)
    }

    @Test(
        "quiet watchers: a source reporting the same place every second is sent once every 10 s, the latest in the end",
        arguments: LocationFix.Source.allCases)
    func quietWatchers(source: LocationFix.Source) {
        var stream = Self.stream()
        var sent: [Double] = []
        for second in 0...35 {
            let place = second.isMultiple(of: 2) ? Self.hamilton : Self.near
            let effects = Self.report(source, at: Double(second), place, into: &stream)
            if !Self.states(effects).isEmpty { sent.append(Double(second)) }
            if second > 30 { #expect(effects == [.armNoticeTimer(until: Self.at(40).instant)]) }
        }
        #expect(sent == [0, 10, 20, 30], "\(source): at most once every 10 s")
        #expect(stream.tick(at: Self.at(39)) == [.armNoticeTimer(until: Self.at(40).instant)], "not due yet")
        let last = Self.states(stream.tick(at: Self.at(40)))
        #expect(last.map(\.location?.at) == [Self.at(35).wall], "the latest report goes out in the end")
        #expect(stream.tick(at: Self.at(41)).isEmpty, "nothing held any more")
    }

    @Test("a source that moves 100 m or more a second is sent every second", arguments: LocationFix.Source.allCases)
    func moving(source: LocationFix.Source) {
        var stream = Self.stream()
        for second in 0...5 {
            let place = Coordinate(lat: Self.hamilton.lat + Double(second) * 0.0015, lon: Self.hamilton.lon)  // 167 m a second
            #expect(Self.states(Self.report(source, at: Double(second), place, into: &stream)).count == 1)
        }
    }

    @Test("another change while a location is held goes out at once, with the latest location")
    func otherChangeCarriesLocation() {
        var stream = Self.stream()
        _ = Self.report(.client, at: 0, Self.hamilton, into: &stream)
        #expect(Self.states(Self.report(.client, at: 1, Self.near, into: &stream)).isEmpty)
        let (_, effects) = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(2))
        #expect(Self.states(effects).map(\.location?.coordinate) == [Self.near])
        #expect(stream.tick(at: Self.at(10)).isEmpty, "the held change went out with it")
    }

    // MARK: Follow mode

    static let zocca = Coordinate(lat: 44.34, lon: 10.99)
    /// 0.01° of latitude north of Zocca: ≈ 1112 m.
    static let zoccaFar = Coordinate(lat: 44.35, lon: 10.99)
    /// 0.005° of latitude north of Zocca: ≈ 556 m.
    static let zoccaNear = Coordinate(lat: 44.345, lon: 10.99)

    /// The location service's report at `seconds`: the state of the location input with follow
    /// mode's settings and `event` (nil: the settings alone).
    static func told(
        _ event: FollowReport.Event?, at seconds: Double, follow: Bool = true, distance: Double = 1000, into stream: inout SearchStream
    ) -> [Effect] {
        var location = stream.state.location
        if case .fused(let fix)? = event { location = fix }
        return stream.locationChanged(
            gps: stream.state.gps, location: location, sources: stream.state.locationSources,
            follow: FollowReport(follow: follow, distance: distance, event), at: at(seconds))
    }

    /// A new fused location at `coordinate`, `seconds` after the start.
    static func fused(_ coordinate: Coordinate, at seconds: Double) -> FollowReport.Event {
        .fused(LocationFix(coordinate: coordinate, horizontalError: 10, at: at(seconds).wall, source: .gpsd))
    }

    /// Where the effects ask for a follow search.
    static func followed(_ effects: [Effect]) -> [Coordinate] {
        effects.compactMap { if case .followSearch(let fix) = $0 { fix.coordinate } else { nil } }
    }

    @Test("follow off: no fused location is searched, and none moves the last searched point")
    func followOff() {
        var stream = Self.stream()
        #expect(Self.followed(Self.told(Self.fused(Self.zocca, at: 1), at: 1, follow: false, into: &stream)).isEmpty)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaFar, at: 2), at: 2, follow: false, into: &stream)).isEmpty)
        #expect(stream.follow.lastSearched == nil)
        #expect(stream.generation == 0, "the stream begins no input by itself: the engine runs the search")
    }

    @Test(
        "follow on: the first fused location is searched after the state showing it; one nearer than follow_distance is not, one farther is"
    )
    func followDistance() {
        var stream = Self.stream()
        let first = Self.told(Self.fused(Self.zocca, at: 1), at: 1, into: &stream)
        #expect(Self.followed(first) == [Self.zocca])
        #expect(Self.states(first).map(\.location?.coordinate) == [Self.zocca])
        #expect(first.firstIndex { if case .followSearch = $0 { true } else { false } } == first.count - 1, "the search after the state")
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaNear, at: 2), at: 2, into: &stream)).isEmpty, "≈ 556 m")
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaFar, at: 3), at: 3, into: &stream)) == [Self.zoccaFar], "≈ 1112 m")
        #expect(stream.follow.lastSearched == Self.zoccaFar)
    }

    @Test("follow on: the distance counts from the last searched point, so a slow drift is searched once it adds up")
    func followDrift() {
        var stream = Self.stream()
        _ = Self.told(Self.fused(Self.zocca, at: 1), at: 1, into: &stream)
        let step1 = Coordinate(lat: 44.346, lon: 10.99)  // ≈ 667 m
        let step2 = Coordinate(lat: 44.352, lon: 10.99)  // ≈ 1334 m from the first
        #expect(Self.followed(Self.told(Self.fused(step1, at: 2), at: 2, into: &stream)).isEmpty)
        #expect(Self.followed(Self.told(Self.fused(step2, at: 3), at: 3, into: &stream)) == [step2])
    }

    @Test("a fix a locate took counts as searched: it is not searched again, and fixes near it are not either")
    func followLocated() {
        var stream = Self.stream()
        #expect(Self.followed(Self.told(.located(Self.zocca), at: 1, into: &stream)).isEmpty)
        #expect(stream.follow.lastSearched == Self.zocca)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaNear, at: 2), at: 2, into: &stream)).isEmpty)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaFar, at: 3), at: 3, into: &stream)) == [Self.zoccaFar])
    }

    @Test("a location search that begins (a locate, a follow search) counts as searched; a text search does not")
    func followLocationInput() {
        var stream = Self.stream()
        _ = Self.told(nil, at: 0, into: &stream)  // follow on, nothing searched yet
        _ = stream.begin(.text(city: "London"), lookups: 1, at: Self.at(1))
        #expect(stream.follow.lastSearched == nil)
        _ = stream.begin(.location(Self.zoccaFar), lookups: 1, at: Self.at(2))
        #expect(stream.follow.lastSearched == Self.zoccaFar)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaFar, at: 3), at: 3, into: &stream)).isEmpty)
    }

    @Test("after a resume the next fused location is searched even if it did not move")
    func followResumed() {
        var stream = Self.stream()
        _ = Self.told(Self.fused(Self.zocca, at: 1), at: 1, into: &stream)
        #expect(Self.followed(Self.told(Self.fused(Self.zocca, at: 2), at: 2, into: &stream)).isEmpty, "did not move")
        #expect(Self.followed(Self.told(.resumed, at: 3, into: &stream)).isEmpty)
        #expect(stream.follow.lastSearched == nil)
        #expect(Self.followed(Self.told(Self.fused(Self.zocca, at: 4), at: 4, into: &stream)) == [Self.zocca])
    }

    @Test("a reload changes follow mode: off, a far location is not searched; a shorter follow_distance judges the next one")
    func followReload() {
        var stream = Self.stream()
        _ = Self.told(Self.fused(Self.zocca, at: 1), at: 1, into: &stream)
        _ = Self.told(nil, at: 2, follow: false, into: &stream)
        #expect(!stream.follow.enabled)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaFar, at: 3), at: 3, follow: false, into: &stream)).isEmpty)
        _ = Self.told(nil, at: 4, follow: true, distance: 500, into: &stream)
        #expect(stream.follow.enabled && stream.follow.distance == 500)
        #expect(Self.followed(Self.told(Self.fused(Self.zoccaNear, at: 5), at: 5, distance: 500, into: &stream)) == [Self.zoccaNear])
    }
}
