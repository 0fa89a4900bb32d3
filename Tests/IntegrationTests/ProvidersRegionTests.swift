import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Region grids and city rounds with two providers: a grid in one Open-Meteo request, its
/// cancellation when a newer region supersedes it, its failover point by point, and a refresh round
/// that fails over. The regions lie over open ocean (each point a feature of its own) unless a test
/// needs a city under a grid.
@Suite("providers: region grids and refresh rounds", .processTimeLimit)
struct ProvidersRegionTests {
    /// A daemon asking `providers` in that order, no watched cities, and a watcher that saw the start.
    private static func start(_ providers: [Provider], openMeteo: [String] = [], web: Bool = false) async throws -> (
        ReplayServer, DaemonProcess, Watcher
    ) {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: providers)
        setup.openMeteoLines = openMeteo
        if web { setup.webLines = ["listen = \"127.0.0.1:0\""] }
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)
        try await watcher.next("the replayed overlays") { $0.isOverlaysNotification }
        return (replay, daemon, watcher)
    }

    @Test(
        "a 3×3 grid costs Open-Meteo 1 request for its 9 points, OpenWeatherMap 9 requests; each counts 9 in state.providers",
        arguments: Provider.allCases)
    func gridCost(_ first: Provider) async throws {
        let (replay, daemon, watcher) = try await Self.start([first, first.other], web: true)
        _ = try await daemon.call("region", regionParams(-30, -140, span: (2, 2)))
        let (settled, messages) = try await watcher.next("the grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        #expect(settled.params?["phase"] == "populated", "\(settled.serialized)")
        // The grid lands as one change. (An empty change may come first: the daemon's first round,
        // with no cities, publishes the empty overlays once more, and a watcher that started just
        // before it has it after its replay.)
        let changes = messages.filter { $0.isOverlaysNotification && !($0.params?.features.isEmpty ?? true) }
        #expect(changes.count == 1, "one overlays change: \(describe(messages.filter(\.isOverlaysNotification)))")
        let overlays = try #require(changes.last?.params)
        #expect(overlays.features.count == 9 && Set(overlays.featureIDs).count == 9, "\(overlays.serialized)")
        #expect(overlays.features.allSatisfy { $0.provider == first.rawValue }, "\(overlays.serialized)")

        let stats = try await replay.stats()
        switch first {
        case .openMeteo:
            #expect(stats.openMeteoForecastRequests == 1 && stats.openMeteoForecastPoints == 9, "one request for the grid: \(stats)")
            #expect(stats.openMeteoRequests == 1 && stats.requests == 0, "\(stats)")
        case .openWeatherMap:
            #expect(stats.weatherRequests == 9 && stats.requests == 9, "one request per point: \(stats)")
            #expect(stats.openMeteoRequests == 0, "\(stats)")
        }
        let statuses = try await daemon.providerStatuses()
        #expect(statuses.first?["name"] == .string(first.rawValue) && statuses.first?["used_minute"] == .integer(9), "\(statuses)")
        #expect(statuses.last?["used_minute"] == .integer(0), "\(statuses)")
        // The metrics count HTTP requests: Open-Meteo's one for the grid is one.
        let metrics = try await httpRequest(port: try await daemon.webPort(), "/metrics").text
        let series = #"weatherd_upstream_requests_total{endpoint="weather",outcome="ok",provider="\#(first.rawValue)"}"#
        #expect(metrics.contains("\n\(series) \(first == .openMeteo ? 1 : 9)\n"), "\(metrics)")
        await watcher.close()
    }

    @Test("a newer region supersedes a grid whose Open-Meteo request hangs: that request is cancelled, its points never land nor fail over")
    func supersededGridRequestIsCancelled() async throws {
        // A timeout far beyond the test's waits: only a cancellation can end the hanging request.
        let (replay, daemon, watcher) = try await Self.start([.openMeteo, .openWeatherMap], openMeteo: ["timeout = \"60s\""])
        // The first grid is centred on Reykjavik, so its one request is covered by the fault; the
        // second lies over the ocean.
        let reykjavik = (lat: 64.1355, lon: -21.8954)
        try await replay.setFault(.openMeteo, city: "Reykjavik", "hang")
        _ = try await daemon.call("region", regionParams(reykjavik.lat, reykjavik.lon))
        try await watcher.next("the first grid to run") {
            $0.params?["running"]?.boolValue == true && isRegionState($0, lat: reykjavik.lat, lon: reykjavik.lon)
        }
        try await replay.waitForHanging(1)
        let hanging = try await replay.stats()
        #expect(hanging.openMeteoForecastRequests == 1 && hanging.openMeteoForecastPoints == 9, "\(hanging)")

        _ = try await daemon.call("region", regionParams(-30, -140))
        try await watcher.next("the second grid to run") {
            $0.params?["running"]?.boolValue == true && isRegionState($0, lat: -30, lon: -140)
        }
        // The first grid's request ends (the daemon closed its connection), though the fault holds.
        try await replay.waitForHanging(0)
        let (settled, messages) = try await watcher.next("the second grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        #expect(settled.params?["phase"] == "populated", "\(settled.serialized)")
        let changes = messages.filter(\.isOverlaysNotification)
        #expect(changes.count == 1, "only the second grid lands: \(describe(changes))")
        let overlays = try #require(changes.last?.params)
        let longitudes = overlays.features.compactMap { $0["geometry"]?["coordinates"]?.position?.first }
        #expect(
            overlays.features.count == 9 && longitudes.count == 9 && longitudes.allSatisfy { abs($0 - -140) <= 1.5 },
            "the second grid's features only: \(overlays.serialized)")
        #expect(overlays.features.allSatisfy { $0.provider == "open-meteo" })
        #expect(try await daemon.call("overlays") == overlays)

        let stats = try await replay.stats()
        #expect(stats.openMeteoForecastRequests == 2 && stats.openMeteoForecastPoints == 18, "one request per grid: \(stats)")
        #expect(stats.requests == 0, "the cancelled grid's points went to OpenWeatherMap: \(stats)")
        let statuses = try await daemon.providerStatuses()
        #expect(
            statuses.first?["usable"] == .bool(true) && statuses.first?["error"] == .null, "a cancelled request is no failure: \(statuses)")
        await watcher.close()
    }

    @Test("Open-Meteo answers 503 for a grid: its 9 points fail over to OpenWeatherMap one by one, none lost")
    func gridFailsOverPointByPoint() async throws {
        let (replay, daemon, watcher) = try await Self.start([.openMeteo, .openWeatherMap])
        try await replay.setFault(.openMeteo, "503")
        _ = try await daemon.call("region", regionParams(-30, -140, span: (2, 2)))
        let (settled, messages) = try await watcher.next("the grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        #expect(settled.params?["phase"] == "populated" && settled.params?["error"] == .null, "\(settled.serialized)")
        let overlays = try #require(messages.last(where: \.isOverlaysNotification)?.params, "no overlays landed")
        #expect(overlays.features.count == 9 && Set(overlays.featureIDs).count == 9, "\(overlays.serialized)")
        #expect(overlays.features.allSatisfy { $0.provider == "openweathermap" }, "\(overlays.serialized)")

        let stats = try await replay.stats()
        #expect(stats.openMeteoForecastRequests == 1 && stats.openMeteoForecastPoints == 9, "\(stats)")
        #expect(stats.weatherRequests == 9 && stats.requests == 9, "\(stats)")
        let statuses = try await daemon.providerStatuses()
        #expect(statuses.first?["usable"] == .bool(false), "\(statuses)")
        #expect(statuses.first?["error"] == "Open-Meteo answered HTTP 503", "\(statuses)")
        await watcher.close()
    }

    @Test(
        "Open-Meteo answers 503 for a grid while OpenWeatherMap is blocked: no other provider is usable, so its points get its error and nothing more is sent"
    )
    func gridFailsWithNoOtherProviderUsable() async throws {
        let (replay, daemon, watcher) = try await Self.start([.openWeatherMap, .openMeteo])
        // A 429 blocks OpenWeatherMap for a minute; Open-Meteo answers London and is now the first usable provider.
        try await replay.setFault(.openWeatherMap, "429", ["retry_after": "60"])
        let london = try await daemon.call("search", ["city": "London"])
        #expect(london.provider == "open-meteo", "\(london.serialized)")
        let before = try await replay.stats()
        #expect(before.requests == 1 && before.openMeteoForecastRequests == 1, "\(before)")

        try await replay.setFault(.openMeteo, "503")
        _ = try await daemon.call("region", regionParams(-30, -140, span: (2, 2)))
        let (settled, messages) = try await watcher.next("the grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        let after = try await replay.stats()
        #expect(
            after.openMeteoForecastRequests == before.openMeteoForecastRequests + 1
                && after.openMeteoForecastPoints == before.openMeteoForecastPoints + 9,
            "one request for the grid, and no point asked again of the provider that just failed: \(after)")
        #expect(after.requests == before.requests, "the block was overridden: \(after)")
        #expect(settled.params?["phase"] == "error" && settled.params?["error"]?["code"] == .integer(-32004), "\(settled.serialized)")
        #expect(
            messages.filter { $0.isOverlaysNotification && !($0.params?.features.isEmpty ?? true) }.allSatisfy {
                !($0.params?.features.contains { $0["properties"]?["source"] == "around" } ?? false)
            }, "no grid feature landed: \(describe(messages))")
        await watcher.close()
    }

    @Test("Open-Meteo fails during refresh rounds: every watched city keeps a fresh feature, now from OpenWeatherMap")
    func refreshRoundFailsOver() async throws {
        let replay = try await ReplayServer.start()
        let cities = ["London,GB", "Paris", "Zocca"]
        var setup = DaemonSetup(
            directory: try TemporaryDirectory(), replay: replay, providers: [.openMeteo, .openWeatherMap], cities: cities)
        setup.weatherLines = ["cache_ttl = \"0s\""]
        setup.refresh = "1s"
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["overlays"])])
        let (first, _) = try await watcher.next("the first round's overlays") {
            $0.isOverlaysNotification && $0.params?.features.count == 3
        }
        let firstFeatures = first.params?.features ?? []
        #expect(
            firstFeatures.allSatisfy { $0.provider == "open-meteo" && $0["properties"]?["stale"] == .bool(false) }, "\(first.serialized)")
        #expect(try await replay.stats().requests == 0)

        // Set before the next round (1 s after this one); should a round already run, a later one
        // fails over all the same.
        try await replay.setFault(.openMeteo, "500")
        let (failedOver, between) = try await watcher.next("a round answered by OpenWeatherMap") {
            $0.isOverlaysNotification && $0.params?.features.contains { $0.provider == "openweathermap" } == true
        }
        let rounds = between.filter(\.isOverlaysNotification) + [failedOver]
        let staleOnes = rounds.filter { $0.params?.features.contains { $0["properties"]?["stale"] != .bool(false) } == true }
        #expect(staleOnes.isEmpty, "a city went stale: \(describe(staleOnes))")
        let features = failedOver.params?.features ?? []
        #expect(
            features.count == 3 && features.allSatisfy { $0.provider == "openweathermap" },
            "every city from OpenWeatherMap: \(failedOver.serialized)")
        #expect(features.compactMap { $0["properties"]?["name"]?.stringValue } == ["London", "Paris", "Zocca"], "\(failedOver.serialized)")

        let state = try await daemon.call("state")
        #expect(state["error"] == .null && state["phase"] != "error", "\(state.serialized)")
        let stats = try await replay.stats()
        #expect(stats.weatherRequests >= 3 && stats.placeRequests == 0, "the places found by Open-Meteo are kept: \(stats)")
        await watcher.close()
    }
}
