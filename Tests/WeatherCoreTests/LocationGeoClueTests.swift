import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// GeoClue as a source of the fused location: its own accuracy limit, its entry of
/// `location_sources`, and `locate` with `source: "geoclue"`.
@Suite("LocationService: GeoClue", .timeLimit(.minutes(1)))
struct LocationGeoClueTests {
    static let enabled = GeoClueConfig(enabled: true, maxHorizontalError: 25_000)
    static let zocca = Coordinate(lat: 44.3412, lon: 10.9876)

    private func geoclueEntry(_ h: LocationHarness) async -> LocationSourceStatus? {
        await h.engine.engine.currentState.locationSources.first { $0.kind == .geoclue }
    }

    @Test("enabled, the entry shows enabled and not connected once published; the client's start and end show in it, nothing else changes")
    func connectedFollowsTheClient() async throws {
        let h = try LocationHarness(geoclue: Self.enabled)
        await h.service.publishSources()
        #expect(await geoclueEntry(h) == LocationSourceStatus(kind: .geoclue, enabled: true, connected: false))
        await h.service.setConnected(true, source: .geoclue)
        #expect(await geoclueEntry(h)?.connected == true)
        #expect(await h.service.gpsStatus.connected == false, "gpsd's status is its own")
        await h.service.setConnected(false, source: .geoclue)
        #expect(await geoclueEntry(h)?.connected == false)
        #expect(await h.service.location == nil)
    }

    @Test("disabled (the default), the entry shows enabled false")
    func disabledByDefault() async throws {
        let h = try LocationHarness()
        await h.service.publishSources()
        #expect(await geoclueEntry(h) == LocationSourceStatus(kind: .geoclue, enabled: false, connected: false))
    }

    @Test("a GeoClue fix is held to geoclue.max_horizontal_error, not to location.max_horizontal_error")
    func ownLimit() async throws {
        let h = try LocationHarness(maxHorizontalError: 100, geoclue: Self.enabled)
        let city = await h.service.report(coordinate: Self.zocca, horizontalError: 20_000, source: .geoclue)
        #expect(city == .accepted)
        #expect(await h.service.location?.source == .geoclue)
        #expect(await geoclueEntry(h)?.lastFixAt == EngineHarness.startTime)
        let country = await h.service.report(coordinate: Self.zocca, horizontalError: 30_000, source: .geoclue)
        #expect(country == .rejected(.inaccurate))
    }

    @Test("locate with source geoclue: -32006 while disabled; when enabled a GeoClue fix answers it")
    func locateFromGeoClue() async throws {
        let disabled = try LocationHarness()
        let error = await expectWeatherError { try await disabled.service.locate(timeout: .seconds(5), source: .geoclue) }
        #expect(error?.code == .gpsDisabled)

        let h = try LocationHarness(enabled: false, geoclue: Self.enabled)
        h.scriptWeather(at: Self.zocca, name: "Zocca", id: 3_163_858)
        let locate = Task { try await h.service.locate(timeout: .seconds(30), source: .geoclue) }
        await h.waitForLocates(1)
        _ = await h.service.report(coordinate: Self.zocca, horizontalError: 4_000, source: .geoclue)
        let feature = try await locate.value
        #expect(feature.id == "owm:3163858")
    }
}
