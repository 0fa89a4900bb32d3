import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Air quality from owm-replay's `/v1/air-quality` on the real daemon: a region's grid in one request
/// beside the weather's, the recorded Enschede answer in a search and in weatherctl, and a failing
/// air quality API that keeps the weather and shows in `state.services`.
@Suite("air quality on the real daemon", .processTimeLimit)
struct AirQualityIntegrationTests {
    /// Enschede, whose recorded air quality answer owm-replay serves (Open-Meteo's cell 52.3, 6.9).
    static let enschede: JSONObject = [
        "place": .object(["name": "Enschede", "country": "NL", "lat": .double(52.2215), "lon": .double(6.8937)])
    ]

    private static func start(_ providers: [Provider]) async throws -> (ReplayServer, DaemonProcess, Watcher) {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: providers)
        setup.airQuality = true
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)
        return (replay, daemon, watcher)
    }

    @Test("a 3×3 region with Open-Meteo: one weather request and one air quality request for its 9 points, 18 in Open-Meteo's budget")
    func grid() async throws {
        let (replay, daemon, watcher) = try await Self.start([.openMeteo])
        _ = try await daemon.call("region", regionParams(-30, -140, span: (2, 2)))
        let (_, messages) = try await watcher.next("the grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        let overlays = try #require(messages.last(where: \.isOverlaysNotification)?.params)
        #expect(overlays.features.count == 9, "\(overlays.serialized)")
        for feature in overlays.features {
            let air = feature["properties"]?["air_quality"]
            #expect(air?["provider"] == "open-meteo" && air?["european_aqi"]?.doubleValue != nil, "\(feature.serialized)")
        }
        let stats = try await replay.stats()
        #expect(stats.openMeteoForecastRequests == 1 && stats.openMeteoForecastPoints == 9, "\(stats)")
        #expect(stats.airQualityRequests == 1 && stats.airQualityPoints == 9, "\(stats)")
        let state = try await daemon.call("state")
        #expect(state.providerStatus(.openMeteo)?["used_minute"] == .integer(18), "\(state.serialized)")
        #expect(
            state["services"]?.arrayValue?.first { $0["name"] == "air-quality" }
                == .object(["name": "air-quality", "usable": .bool(true), "blocked_until": .null, "error": .null]), "\(state.serialized)")
        await watcher.close()
    }

    @Test("a search at Enschede carries the recorded answer; weatherctl prints both bands and credits CAMS")
    func recorded() async throws {
        let (replay, daemon, watcher) = try await Self.start([.openWeatherMap])
        let feature = try await daemon.call("search", Self.enschede)
        let air = try #require(feature["properties"]?["air_quality"])
        #expect(
            AirQuality(json: air)
                == AirQuality(
                    europeanAQI: 44, usAQI: 65, pm25: 22.1, pm10: 28.2, ozone: 42, nitrogenDioxide: 11.2,
                    at: Timestamp.parse("2026-10-03T10:00:00Z"), provider: "open-meteo", scale: .european), "\(air.serialized)")
        let stats = try await replay.stats()
        #expect(stats.airQualityRequests == 1 && stats.openMeteoRequests == 0, "asked from Open-Meteo's air quality API alone: \(stats)")

        let printed = try await daemon.weatherctl(["search", "Enschede, NL"])
        #expect(printed.status == 0, "\(printed)")
        #expect(printed.stdout.contains(#/\nair quality \d+ [a-z ]+ \(European AQI\)\n/#), "\(printed)")
        #expect(printed.stdout.contains("Air quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com"), "\(printed)")
        await watcher.close()
    }

    @Test("the air quality API failing: the search still answers with the weather (air_quality null) and state.services says why")
    func failure() async throws {
        let (replay, daemon, watcher) = try await Self.start([.openWeatherMap])
        // The weather comes from OpenWeatherMap; only Open-Meteo's air quality API fails.
        try await replay.setFault(.openMeteo, "503")
        let feature = try await daemon.call("search", Self.enschede)
        #expect(feature["properties"]?["temperature"]?.doubleValue != nil, "\(feature.serialized)")
        #expect(feature["properties"]?["air_quality"] == .null, "\(feature.serialized)")
        let (notice, _) = try await watcher.next("state.services to show the failure") { message in
            message.isStateNotification
                && message.params?["services"]?.arrayValue?.contains { entry in
                    entry["name"] == "air-quality" && entry["usable"] == .bool(false)
                } == true
        }
        let entry = try #require(notice.params?["services"]?.arrayValue?.first { $0["name"] == "air-quality" })
        let error = entry["error"]?.stringValue ?? ""
        #expect(error.contains("503"), "\(entry.serialized)")
        // The failure may be published while the search still runs (phase loading); the search has
        // answered since, and the state it left is asked.
        let state = try await daemon.call("state")
        #expect(state["phase"]?.stringValue == "populated", "the search did not fail: \(state.serialized)")
        #expect(try await replay.stats().airQualityRequests == 1)
        await watcher.close()
    }
}
