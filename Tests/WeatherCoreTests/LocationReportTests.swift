import Foundation
import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore

/// The fused location in the service: a client's report and gpsd's fixes through one rule, the
/// state, and `locate` with `source` and `max_age`. The harness's wall clock stands still at
/// ``EngineHarness/startTime``.
@Suite("LocationService: reports, the fused location and locate", .timeLimit(.minutes(1)))
struct LocationReportTests {
    static let london = Coordinate(lat: 51.5085, lon: -0.1257)
    static let zocca = Coordinate(lat: 44.3412, lon: 10.9876)

    @Test("a report within report_max_horizontal_error is the fused location, its source kept, client's last_fix_at set")
    func reportIsFused() async throws {
        let h = try LocationHarness(enabled: false)
        let verdict = await h.service.report(coordinate: Self.london, horizontalError: 1500, source: .browser)
        #expect(verdict == .accepted)
        let state = await h.engine.engine.currentState
        #expect(state.location?.source == .browser)
        #expect(state.json["location"]?["source"] == "browser")
        #expect(state.json["location"]?["horizontal_error"] == .double(1500))
        let client = state.locationSources.first { $0.kind == .client }
        #expect(client?.lastFixAt == EngineHarness.startTime)
        #expect(h.publisher.states.last?.location?.coordinate == Self.london, "published")
    }

    @Test("a report above report_max_horizontal_error is inaccurate, one older than max_age too old; neither is fused")
    func reportRejected() async throws {
        let h = try LocationHarness(enabled: false)
        #expect(await h.service.report(coordinate: Self.london, horizontalError: 5001) == .rejected(.inaccurate))
        let old = EngineHarness.startTime.addingTimeInterval(-121)
        #expect(await h.service.report(coordinate: Self.london, horizontalError: 10, at: old) == .rejected(.tooOld))
        #expect(await h.service.location == nil)
        #expect(await h.engine.engine.currentState.location == nil)
    }

    @Test("a gpsd fix is the fused location; a less accurate report right after it is held")
    func gpsdHoldsReport() async throws {
        let h = try LocationHarness()
        await h.service.receive(tpv(Self.zocca.lat, Self.zocca.lon, eph: 8))
        #expect(await h.service.location?.source == .gpsd)
        #expect(await h.service.report(coordinate: Self.london, horizontalError: 900) == .rejected(.held))
        #expect(await h.service.location?.coordinate == Self.zocca)
        let sources = await h.engine.engine.currentState.locationSources
        #expect(sources.map(\.kind) == [.gpsd, .owntracks, .geoclue, .client])
        #expect(sources.allSatisfy { $0.kind == .owntracks || $0.kind == .geoclue || $0.lastFixAt == EngineHarness.startTime })
    }

    @Test("locate with max_age answers at once with the fused fix, its source in properties.fix")
    func locateMaxAge() async throws {
        let h = try LocationHarness(enabled: false)
        h.scriptWeather(at: Self.london, name: "London", id: 2_643_743)
        _ = await h.service.report(coordinate: Self.london, horizontalError: 40, source: .browser)
        let feature = try await h.service.locate(timeout: .seconds(5), maxAge: .seconds(60))
        #expect(feature.fix == FixSummary(coordinate: Self.london, horizontalError: 40, mode: nil, source: .browser))
        #expect(feature.json["properties"]?["fix"]?["source"] == "browser")
        #expect(feature.json["properties"]?["fix"]?["mode"] == .null)
        #expect(h.clock.sleeperCount == 0, "it did not wait")
    }

    @Test("locate with max_age and no fused fix waits for the next one; with only clients it is gps_disabled")
    func locateMaxAgeWithoutFix() async throws {
        let none = try LocationHarness(enabled: false)
        let error = await expectWeatherError { try await none.service.locate(timeout: .seconds(5), maxAge: .seconds(60)) }
        #expect(error?.code == .gpsDisabled)

        let h = try LocationHarness()
        h.scriptWeather(at: Self.zocca, name: "Zocca", id: 3_163_858)
        let locate = Task { [service = h.service] in try await service.locate(timeout: .seconds(5), maxAge: .seconds(60)) }
        await h.waitForLocates(1)
        await h.service.receive(tpv(Self.zocca.lat, Self.zocca.lon))
        #expect(try await locate.outcome.get().fix?.source == .gpsd)
    }

    @Test("locate with source client waits for the next report even with gpsd disabled")
    func locateSourceClient() async throws {
        let h = try LocationHarness(enabled: false)
        h.scriptWeather(at: Self.london, name: "London", id: 2_643_743)
        let locate = Task { [service = h.service] in try await service.locate(timeout: .seconds(5), source: .client) }
        await h.waitForLocates(1)
        #expect(await h.service.report(coordinate: Self.london, horizontalError: 70) == .accepted)
        let feature = try await locate.outcome.get()
        #expect(feature.fix?.source == .client)
    }

    @Test("locate with source gpsd takes gpsd's next fix within its limit even while a report holds the location")
    func locateSourceGPSDHeld() async throws {
        let h = try LocationHarness()
        h.scriptWeather(at: Self.zocca, name: "Zocca", id: 3_163_858)
        _ = await h.service.report(coordinate: Self.london, horizontalError: 5)
        let locate = Task { [service = h.service] in try await service.locate(timeout: .seconds(5), source: .gpsd) }
        await h.waitForLocates(1)
        await h.service.receive(tpv(Self.zocca.lat, Self.zocca.lon, eph: 50))
        #expect(await h.service.location?.source == .client, "the report is more accurate and younger than hold")
        #expect(try await locate.outcome.get().fix?.source == .gpsd)
    }

    @Test(
        "locate with a source that is not enabled is gps_disabled (-32006) at once",
        arguments: [LocationSourceKind.gpsd, .owntracks, .geoclue])
    func sourceNotEnabled(source: LocationSourceKind) async throws {
        let h = try LocationHarness(enabled: false)
        let error = await expectWeatherError { try await h.service.locate(timeout: .seconds(5), source: source) }
        #expect(error?.code == .gpsDisabled)
        #expect(error?.message.contains(source.rawValue) == true)
        #expect(await h.service.waitingLocates == 0)
    }

    @Test("runExpiry drops the fused location when it reaches max_age, and the state says so")
    func expiry() async throws {
        let engine = try EngineHarness(cities: [], gps: GPSStatus(enabled: false))
        let wall = Mutex(EngineHarness.startTime)
        let service = LocationService(
            settings: .init(
                enabled: false, maxHorizontalError: 100, maxAge: .seconds(120), locateTimeout: .seconds(30), follow: false,
                followDistance: 1000),
            engine: engine.engine, clock: DaemonClock(engine.clock), wallClock: { wall.withLock { $0 } }, logger: silentLogger)
        let expiry = Task { await service.runExpiry() }
        #expect(await service.report(coordinate: Self.london, horizontalError: 30) == .accepted)
        await untilCancelled { [clock = engine.clock] in await clock.waitForSleepers(1) }  // until the fix is 120 s old

        wall.withLock { $0 = EngineHarness.startTime.addingTimeInterval(119) }
        engine.clock.advance(by: .seconds(119))  // not due yet
        #expect(await service.location != nil, "119 s old: still the location")

        wall.withLock { $0 = EngineHarness.startTime.addingTimeInterval(120) }
        engine.clock.advance(by: .seconds(1))
        await untilCancelled { [publisher = engine.publisher] in
            await publisher.waitForState { $0.location == nil && $0.locationSources.last?.lastFixAt != nil }
        }
        #expect(await service.location == nil)
        expiry.cancel()
        await expiry.value
    }

    @Test("locate with max_age does not take a fused fix that reached location.max_age but was not dropped yet")
    func locateMaxAgeExpired() async throws {
        let engine = try EngineHarness(cities: [], gps: GPSStatus(enabled: false))
        let wall = Mutex(EngineHarness.startTime)
        let service = LocationService(
            settings: .init(
                enabled: false, maxHorizontalError: 100, maxAge: .seconds(120), locateTimeout: .seconds(30), follow: false,
                followDistance: 1000),
            engine: engine.engine, clock: DaemonClock(engine.clock), wallClock: { wall.withLock { $0 } }, logger: silentLogger)
        #expect(await service.report(coordinate: Self.london, horizontalError: 30) == .accepted)
        wall.withLock { $0 = EngineHarness.startTime.addingTimeInterval(120) }
        let error = await expectWeatherError { try await service.locate(timeout: .seconds(5), maxAge: .seconds(600)) }
        #expect(error?.code == .gpsDisabled, "no fix to answer at once, and no source of the daemon's own to wait for")
    }
}
