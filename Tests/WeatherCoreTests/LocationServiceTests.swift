import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// Places used below. Zocca's weather station is at 44.34, 10.99; the fixes near it look up the
/// same 0.01° cell. 0.01° of latitude is about 1112 m.
private enum Place {
    static let zocca = Coordinate(lat: 44.3412, lon: 10.9876)
    static let zoccaStation = Coordinate(lat: 44.34, lon: 10.99)
    static let london = Coordinate(lat: 51.5085, lon: -0.1257)
    static let hamilton = Coordinate(lat: -37.7848, lon: 175.3149)
}

private func report(_ c: Coordinate, eph: Double? = 20, mode: Int = 3) -> GPSReport {
    tpv(c.lat, c.lon, eph: eph, mode: mode)
}

// MARK: - locate

@Suite("LocationService: locate", .timeLimit(.minutes(1)))
struct LocationServiceLocateTests {
    @Test("locate with gpsd disabled fails at once with -32006 gps_disabled, without waiting or looking anything up")
    func disabled() async throws {
        let h = try LocationHarness(enabled: false)
        let error = await expectWeatherError { try await h.service.locate(timeout: .seconds(30)) }
        #expect(error?.code == .gpsDisabled)
        #expect(error?.json["code"] == .integer(-32006))
        #expect(error?.json["data"]?["name"] == "gps_disabled")
        #expect(h.clock.sleeperCount == 0)
        #expect(await h.service.waitingLocates == 0)
        #expect(h.upstream.fetchCount == 0)
    }

    @Test("locate answers with the feature at the next accepted fix after the call, not one received before it")
    func nextFixAfterTheCall() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        await h.service.receive(report(Place.zocca))

        let locate = h.startLocate()
        await h.waitForLocates(1)
        #expect(await h.service.waitingLocates == 1, "a fix received before the call does not answer it")
        await h.service.receive(report(Place.london, eph: 12.5, mode: 2))

        let feature = try await locate.outcome.get()
        #expect(feature.fix == FixSummary(coordinate: Place.london, horizontalError: 12.5, mode: 2))
        #expect(feature.id == "owm:2643743")
        #expect(feature.source == .location)
        #expect(h.upstream.fetches == [.coordinate(Place.london)])
    }

    @Test("reports the filter rejects do not answer a waiting locate")
    func rejectedReportsDoNotAnswer() async throws {
        let h = try LocationHarness(maxHorizontalError: 50)
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        let locate = h.startLocate()
        await h.waitForLocates(1)

        for rejected in [
            report(Place.zocca, mode: 1), report(Place.zocca, mode: 0), report(Place.zocca, eph: nil),
            report(Place.zocca, eph: 50.5), report(Place.zocca, eph: .nan),
            GPSReport(mode: 3, coordinate: nil, horizontalError: 5),
        ] {
            await h.service.receive(rejected)
        }
        #expect(await h.service.waitingLocates == 1)
        #expect(h.clock.sleeperCount == 1)

        await h.service.receive(report(Place.london))
        #expect(try await locate.outcome.get().fix?.coordinate == Place.london)
    }

    @Test("locate gives up with -32005 no_fix exactly at its timeout: 1 ms before it still waits")
    func timesOutExactly() async throws {
        let h = try LocationHarness()
        let locate = h.startLocate(timeout: .seconds(2))
        await h.waitForLocates(1)

        h.clock.advance(by: .milliseconds(1999))
        #expect(h.clock.sleeperCount == 1, "1 ms before the timeout the locate still waits")
        #expect(await h.service.waitingLocates == 1)

        h.clock.advance(by: .milliseconds(1))
        try #require(h.clock.sleeperCount == 0, "the timeout is due at exactly 2 s")
        let error = await expectWeatherError { try await locate.outcome.get() }
        #expect(error?.code == .noFix)
        #expect(error?.json["data"]?["name"] == "no_fix")
        #expect(await h.service.waitingLocates == 0)
        #expect(h.upstream.fetchCount == 0)
    }

    @Test("the no_fix message says gpsd is not connected when it is not")
    func timeoutMessageNotConnected() async throws {
        let h = try LocationHarness()
        let locate = h.startLocate(timeout: .seconds(1))
        await h.waitForLocates(1)
        h.clock.advance(by: .seconds(1))
        try #require(h.clock.sleeperCount == 0, "the timeout is due")
        let error = await expectWeatherError { try await locate.outcome.get() }
        #expect(error?.code == .noFix)
        #expect(error?.message.contains("not connected") == true, "\(String(describing: error))")
    }

    @Test("the no_fix message says no fix was good enough when gpsd is connected")
    func timeoutMessageConnected() async throws {
        let h = try LocationHarness()
        await h.service.setConnected(true)
        let locate = h.startLocate(timeout: .seconds(1))
        await h.waitForLocates(1)
        await h.service.receive(report(Place.zocca, eph: 500))
        h.clock.advance(by: .seconds(1))
        try #require(h.clock.sleeperCount == 0, "the timeout is due")
        let error = await expectWeatherError { try await locate.outcome.get() }
        #expect(error?.code == .noFix)
        #expect(error?.message.contains("no fix good enough") == true, "\(String(describing: error))")
        #expect(error?.message.contains("not connected") == false)
    }

    @Test("without a timeout locate waits gpsd.locate_timeout")
    func defaultTimeout() async throws {
        let h = try LocationHarness(locateTimeout: .seconds(5))
        let locate = h.startLocate()
        await h.waitForLocates(1)

        h.clock.advance(by: .milliseconds(4999))
        #expect(h.clock.sleeperCount == 1, "still waiting 1 ms before locate_timeout")
        h.clock.advance(by: .milliseconds(1))
        try #require(h.clock.sleeperCount == 0, "the timeout is due at exactly locate_timeout")
        let error = await expectWeatherError { try await locate.outcome.get() }
        #expect(error?.code == .noFix)
    }

    @Test("a cancelled locate stops waiting: no waiter and no timer are left, and the next fix searches nothing")
    func cancelledLocateStopsWaiting() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        let locate = h.startLocate()
        await h.waitForLocates(1)

        locate.cancel()
        let result = await locate.outcome
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(await h.service.waitingLocates == 0)
        #expect(h.clock.sleeperCount == 0)

        await h.service.receive(report(Place.london))
        #expect(h.upstream.fetchCount == 0)
        #expect(await h.engine.engine.currentGeneration == 0, "no search started")
    }

    @Test("several locates waiting at once all answer with the same next fix")
    func concurrentLocatesShareTheFix() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        let locates = (0..<3).map { _ in h.startLocate() }
        await h.waitForLocates(3)
        #expect(await h.service.waitingLocates == 3)

        await h.service.receive(report(Place.london, eph: 7, mode: 3))
        for locate in locates {
            let feature = try await locate.outcome.get()
            #expect(feature.fix == FixSummary(coordinate: Place.london, horizontalError: 7, mode: 3))
        }
        #expect(await h.service.waitingLocates == 0)
    }

    @Test("a locate result lands in the overlays with source location and properties.fix, and the map focuses on it")
    func resultLandsInOverlays() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858, station: Place.zoccaStation)
        let locate = h.startLocate()
        await h.waitForLocates(1)
        await h.service.receive(report(Place.zocca, eph: 20.9, mode: 3))
        let feature = try await locate.outcome.get()

        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == ["owm:3163858"])
        let json = try #require(overlays.json["features"]?.arrayValue?.first)
        #expect(json["properties"]?["source"] == "location")
        #expect(
            json["properties"]?["fix"]?.serialized == #"{"lat":44.3412,"lon":10.9876,"horizontal_error":20.9,"mode":3,"source":"gpsd"}"#)
        #expect(overlays.focus == Place.zocca, "focus is the result's position: the fix's own, not the station's that answered")
        #expect(overlays.focus == feature.coordinate)
        let state = await h.engine.engine.currentState
        #expect(state.input == .location(Place.zocca))
        #expect(state.phase == .populated)
        h.engine.checkInvariants()
    }

    @Test("a locate whose lookup fails answers with the lookup's error and leaves no waiter")
    func lookupErrorReachesRequester() async throws {
        let h = try LocationHarness()
        h.upstream.script(.coordinate(Place.london), .failure(.unavailable("HTTP 503")))
        let locate = h.startLocate()
        await h.waitForLocates(1)
        await h.service.receive(report(Place.london))
        let error = await expectWeatherError { try await locate.outcome.get() }
        #expect(error?.code == .upstreamUnavailable)
        #expect(await h.service.waitingLocates == 0)
        #expect(await h.engine.engine.currentState.phase == .error)
    }
}

// MARK: - state.gps

@Suite("LocationService: state.gps", .timeLimit(.minutes(1)))
struct LocationServiceStateTests {
    @Test("setConnected publishes a state whose gps.connected flips")
    func connectedFlips() async throws {
        let h = try LocationHarness()
        h.publisher.reset()
        await h.service.setConnected(true)
        await h.service.setConnected(false)
        let connected = h.publisher.states.map { $0.json["gps"]?["connected"] }
        #expect(connected == [.bool(true), .bool(false)])
        #expect(h.publisher.states.allSatisfy { $0.json["gps"]?["enabled"] == .bool(true) })
        #expect(await h.service.gpsStatus.connected == false)
    }

    @Test("setConnected with the value it already has publishes nothing")
    func connectedOnlyOnChange() async throws {
        let h = try LocationHarness()
        h.publisher.reset()
        await h.service.setConnected(false)
        #expect(h.publisher.states.isEmpty, "not connected at start: false is no change")
        await h.service.setConnected(true)
        await h.service.setConnected(true)
        #expect(h.publisher.states.count == 1)
    }

    @Test("an accepted fix becomes state.gps.last_fix with lat, lon, horizontal_error and mode")
    func acceptedFixIsLastFix() async throws {
        let h = try LocationHarness()
        h.publisher.reset()
        await h.service.receive(report(Place.hamilton, eph: 20.9, mode: 3))

        let state = try #require(h.publisher.states.last)
        let lastFix = try #require(state.json["gps"]?["last_fix"])
        #expect(lastFix["lat"]?.doubleValue == -37.7848)
        #expect(lastFix["lon"]?.doubleValue == 175.3149)
        #expect(lastFix["horizontal_error"]?.doubleValue == 20.9)
        #expect(lastFix["mode"]?.intValue == 3)
        #expect(lastFix["at"] == .string(Timestamp.iso8601(EngineHarness.startTime)))
        #expect(await h.service.gpsStatus.lastFix?.coordinate == Place.hamilton)
        #expect(await h.engine.engine.currentState.gps.lastFix?.coordinate == Place.hamilton)
    }

    @Test("a rejected report changes nothing: no state is published and last_fix stays")
    func rejectedReportChangesNothing() async throws {
        let h = try LocationHarness()
        await h.service.receive(report(Place.hamilton))
        h.publisher.reset()
        await h.service.receive(report(Place.london, eph: 150))
        await h.service.receive(report(Place.london, mode: 1))
        #expect(h.publisher.states.isEmpty)
        #expect(await h.engine.engine.currentState.gps.lastFix?.coordinate == Place.hamilton)
    }
}

// MARK: - follow mode

@Suite("LocationService: follow mode", .timeLimit(.minutes(1)))
struct LocationServiceFollowTests {
    /// Stops `runFollow` and waits until it has returned. A fix that was queued for a follow
    /// search is still taken (and its search begins, then stops), so what was queued shows.
    private func stop(_ follow: Task<Void, Never>) async {
        follow.cancel()
        await untilCancelled { await follow.value }
    }

    /// How many location searches at `coordinate` began: states with that input and more
    /// lookups pending than the state before.
    private func searchesBegun(at coordinate: Coordinate, _ h: LocationHarness) -> Int {
        var count = 0
        var previous: DaemonState?
        for state in h.publisher.states {
            if state.input == .location(coordinate), state.pending > (previous?.pending ?? 0) { count += 1 }
            previous = state
        }
        return count
    }

    @Test("with follow off, accepted fixes start no search")
    func followOffNoSearches() async throws {
        let h = try LocationHarness(follow: false)
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        let follow = Task { await h.service.runFollow() }
        await h.service.receive(report(Place.zocca))
        await h.service.receive(report(Place.london))
        await stop(follow)

        #expect(h.upstream.fetchCount == 0)
        #expect(await h.engine.engine.currentGeneration == 0, "no search began")
        #expect(!h.publisher.states.contains { if case .location? = $0.input { true } else { false } })
    }

    @Test("with follow on, the first accepted fix starts a search: input location, the result in the overlays, focus on it")
    func followFirstFixSearches() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858, station: Place.zoccaStation)
        let follow = Task { await h.service.runFollow() }
        await h.service.receive(report(Place.london, mode: 1))  // not a fix: no search
        await h.service.receive(report(Place.zocca, eph: 15, mode: 2))
        await h.waitForOverlays(2)  // seq 0 at start, then the search's result
        await stop(follow)

        #expect(h.upstream.fetches == [.coordinate(Place.zocca)])
        let state = await h.engine.engine.currentState
        #expect(state.json["input"]?["kind"] == "location")
        #expect(state.input == .location(Place.zocca))
        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == ["owm:3163858"])
        #expect(overlays.features.first?.source == .location)
        #expect(overlays.features.first?.fix == FixSummary(coordinate: Place.zocca, horizontalError: 15, mode: 2))
        #expect(overlays.focus == Place.zocca, "the fix's own point")
        h.engine.checkInvariants()
    }

    @Test("with follow on, a fix less than follow_distance from the last searched one starts no search")
    func followNearFixNoSearch() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        let follow = Task { await h.service.runFollow() }
        await h.service.receive(report(Place.zocca))
        await h.waitForOverlays(2)

        let near = Coordinate(lat: Place.zocca.lat + 0.005, lon: Place.zocca.lon)  // ≈ 556 m
        await h.service.receive(report(near))
        await stop(follow)

        #expect(h.upstream.fetches == [.coordinate(Place.zocca)])
        #expect(searchesBegun(at: near, h) == 0)
        #expect(await h.engine.engine.currentGeneration == 1)
        #expect(await h.service.gpsStatus.lastFix?.coordinate == near, "the fix is still accepted")
    }

    @Test("with follow on, a fix at least follow_distance from the last searched one starts a search")
    func followFarFixSearches() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        let far = Coordinate(lat: Place.zocca.lat + 0.01, lon: Place.zocca.lon)  // ≈ 1112 m
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        h.scriptWeather(at: far, name: "Montecorone", id: 3_172_391)
        let follow = Task { await h.service.runFollow() }
        await h.service.receive(report(Place.zocca))
        await h.waitForOverlays(2)

        await h.service.receive(report(far))
        await h.waitForOverlays(3)
        await stop(follow)

        #expect(h.upstream.fetches == [.coordinate(Place.zocca), .coordinate(far)])
        #expect(await h.engine.engine.currentOverlays.ids == ["owm:3172391"])
        #expect(await h.engine.engine.currentOverlays.focus == far)
    }

    @Test("with follow on, distance counts from the last searched fix: a slow drift searches once it adds up")
    func followDriftAddsUp() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        let step1 = Coordinate(lat: Place.zocca.lat + 0.006, lon: Place.zocca.lon)  // ≈ 667 m
        let step2 = Coordinate(lat: Place.zocca.lat + 0.012, lon: Place.zocca.lon)  // ≈ 1334 m from the first
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        h.scriptWeather(at: step2, name: "Montecorone", id: 3_172_391)
        let follow = Task { await h.service.runFollow() }
        await h.service.receive(report(Place.zocca))
        await h.waitForOverlays(2)

        await h.service.receive(report(step1))
        await h.service.receive(report(step2))
        await h.waitForOverlays(3)
        await stop(follow)

        #expect(h.upstream.fetches == [.coordinate(Place.zocca), .coordinate(step2)])
    }

    @Test("with follow on, the fix that answers a locate is searched once, by the locate")
    func locateAndFollowSearchOnce() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        let follow = Task { await h.service.runFollow() }
        let locate = h.startLocate()
        await h.waitForLocates(1)
        await h.service.receive(report(Place.zocca))
        let feature = try await locate.outcome.get()
        await stop(follow)

        #expect(feature.fix?.coordinate == Place.zocca)
        #expect(searchesBegun(at: Place.zocca, h) == 1)
        #expect(await h.engine.engine.currentGeneration == 1, "one search for one fix")
    }

    @Test("a reload that turns follow on: the next fix is searched; one that turns it off: a far fix is not")
    func reloadTurnsFollowOnAndOff() async throws {
        let h = try LocationHarness(follow: false, followDistance: 1000)
        let far = Coordinate(lat: Place.zocca.lat + 0.01, lon: Place.zocca.lon)  // ≈ 1112 m
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        let follow = Task { await h.service.runFollow() }
        func settings(follow: Bool) -> LocationService.Settings {
            .init(enabled: true, maxHorizontalError: 100, locateTimeout: .seconds(30), follow: follow, followDistance: 1000)
        }
        await h.service.receive(report(far))
        await h.service.update(settings(follow: true))
        await h.service.receive(report(Place.zocca))
        await h.waitForOverlays(2)
        await h.service.update(settings(follow: false))
        await h.service.receive(report(far))
        await stop(follow)

        #expect(h.upstream.fetches == [.coordinate(Place.zocca)])
        #expect(searchesBegun(at: far, h) == 0)
    }

    @Test("with follow on, a fix near the point a locate searched starts no follow search")
    func locateMovesFollowReference() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        let follow = Task { await h.service.runFollow() }
        let locate = h.startLocate()
        await h.waitForLocates(1)
        await h.service.receive(report(Place.zocca))
        _ = try await locate.outcome.get()

        let near = Coordinate(lat: Place.zocca.lat + 0.005, lon: Place.zocca.lon)
        await h.service.receive(report(near))
        await stop(follow)
        #expect(searchesBegun(at: near, h) == 0)
    }
}

@Suite("LocationService: state notifications for gps.last_fix alone", .timeLimit(.minutes(1)))
struct LastFixNoticeTests {
    private func lastFixes(_ h: LocationHarness) -> [Coordinate?] {
        h.publisher.states.map { $0.gps.lastFix?.coordinate }
    }

    @Test("at most one a second; the latest fix of the second is delivered when it is up, not dropped")
    func coalesced() async throws {
        let h = try LocationHarness()
        let notices = Task { [engine = h.engine.engine] in await engine.runHeldNotices() }
        h.publisher.reset()
        await h.service.receive(report(Place.hamilton))
        #expect(lastFixes(h) == [Place.hamilton], "the first goes out at once")
        await h.service.receive(report(Place.zocca))
        await h.service.receive(report(Place.london))
        #expect(lastFixes(h) == [Place.hamilton], "later ones within the second wait")
        #expect(await h.engine.engine.currentState.gps.lastFix?.coordinate == Place.london, "the state itself is current")
        await h.clock.waitForSleepers(1)  // the held notice waits for its second
        h.clock.advance(by: .milliseconds(999))
        #expect(lastFixes(h) == [Place.hamilton], "not before the second is up")
        h.clock.advance(by: .milliseconds(1))
        await untilCancelled { [publisher = h.publisher] in
            await publisher.waitForState { $0.gps.lastFix?.coordinate == Place.london }
        }
        #expect(lastFixes(h) == [Place.hamilton, Place.london], "one notification with the latest fix")
        // A full second after that one, a fix goes out at once again.
        h.clock.advance(by: .seconds(1))
        await h.service.receive(report(Place.zocca))
        #expect(lastFixes(h) == [Place.hamilton, Place.london, Place.zocca])
        notices.cancel()
        await notices.value
        h.engine.checkInvariants()
    }

    @Test("a fix within 100 m of the last one sent (a receiver that stays): held until 10 s after it, then the latest goes out")
    func staying() async throws {
        let h = try LocationHarness()
        let notices = Task { [engine = h.engine.engine] in await engine.runHeldNotices() }
        h.publisher.reset()
        await h.service.receive(report(Place.hamilton))
        let near = Coordinate(lat: Place.hamilton.lat + 0.0004, lon: Place.hamilton.lon)  // 44 m north
        let nearer = Coordinate(lat: Place.hamilton.lat + 0.0002, lon: Place.hamilton.lon)
        await h.service.receive(report(near))
        await h.clock.waitForSleepers(1)
        h.clock.advance(by: .seconds(5))
        await h.service.receive(report(nearer))
        #expect(lastFixes(h) == [Place.hamilton], "every second would be a notice; these wait")
        await h.clock.waitForSleepers(1)
        h.clock.advance(by: .milliseconds(4999))
        #expect(lastFixes(h) == [Place.hamilton], "not before the 10 s are up")
        h.clock.advance(by: .milliseconds(1))
        await untilCancelled { [publisher = h.publisher] in
            await publisher.waitForState { $0.gps.lastFix?.coordinate == nearer }
        }
        #expect(lastFixes(h) == [Place.hamilton, nearer], "one notification with the latest fix")
        // Moving off (150 m from the one sent) goes out after a second.
        h.clock.advance(by: .seconds(1))
        let away = Coordinate(lat: Place.hamilton.lat + 0.0015, lon: Place.hamilton.lon)
        await h.service.receive(report(away))
        #expect(lastFixes(h) == [Place.hamilton, nearer, away])
        notices.cancel()
        await notices.value
        h.engine.checkInvariants()
    }

    @Test("a change of another field goes out at once, with the held fix, and nothing is sent twice")
    func otherChangeCarriesHeldFix() async throws {
        let h = try LocationHarness()
        let notices = Task { [engine = h.engine.engine] in await engine.runHeldNotices() }
        await h.service.setConnected(true)
        h.publisher.reset()
        await h.service.receive(report(Place.hamilton))
        await h.service.receive(report(Place.zocca))
        #expect(lastFixes(h) == [Place.hamilton])
        await h.service.setConnected(false)
        #expect(lastFixes(h) == [Place.hamilton, Place.zocca], "the connection change carries the held fix")
        #expect(h.publisher.states.last?.gps.connected == false)
        // The held fix went out with the other change: its due time passes without another notice.
        h.clock.advance(by: .seconds(1))
        await h.service.receive(report(Place.london))
        #expect(lastFixes(h) == [Place.hamilton, Place.zocca, Place.london], "nothing held twice; the next fix goes out")
        notices.cancel()
        await notices.value
        h.engine.checkInvariants()
    }
}

@Suite("LocationService: a locate entered before its requester waits", .timeLimit(.minutes(1)))
struct LocationServiceEnteredTests {
    @Test("a fix that comes between enterLocate and complete is the locate's; one before enterLocate is not")
    func fixBeforeComplete() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Place.zocca, name: "Zocca", id: 3_163_858)
        h.scriptWeather(at: Place.london, name: "London", id: 2_643_743)
        await h.service.receive(report(Place.zocca))
        let locate = try await h.service.enterLocate(timeout: .seconds(30))
        #expect(await h.service.waitingLocates == 1)
        await h.service.receive(report(Place.london))
        #expect(await h.service.waitingLocates == 0, "it has its fix, though nobody waits for it yet")
        let feature = try await h.service.complete(locate)
        #expect(feature.id == "owm:2643743")
        #expect(h.upstream.fetches == [.coordinate(Place.london)])
        #expect(h.clock.sleeperCount == 0, "no deadline is kept once it has its fix")
    }

    @Test("an entered locate whose requester went away before it waited ends with it, and leaves nothing waiting")
    func cancelledBeforeComplete() async throws {
        let h = try LocationHarness()
        let locate = try await h.service.enterLocate(timeout: .seconds(3600))
        let completion = Task { [service = h.service] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await service.complete(locate)
        }
        await #expect(throws: CancellationError.self) { try await completion.value }
        #expect(await h.service.waitingLocates == 0)
    }
}
