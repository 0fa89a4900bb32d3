import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Searches end to end: owm-replay as OpenWeatherMap, weatherd, clients on its socket.
@Suite("search")
struct SearchTests {
    @Test("search returns the London Feature; watchers get the overlays focused on it and the state sequence")
    func searchLondon() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        // With no watched cities the daemon is idle: the replayed state is settled.
        let (replayed, _) = try await watcher.next("the replayed state") { $0.isStateNotification }
        #expect(replayed.params?["running"]?.boolValue == false)

        let feature = try await daemon.call("search", ["city": "London"])
        #expect(feature["type"] == "Feature")
        #expect(feature["id"]?.stringValue == Fixtures.londonID)
        #expect(feature["geometry"]?["coordinates"]?.position == Fixtures.londonPosition)
        #expect(feature["properties"]?["source"] == "text")
        #expect(feature["properties"]?["name"] == "London")
        #expect(feature["properties"]?["country"] == "GB")

        let (running, _) = try await watcher.next("state running: true for London") {
            $0.isStateNotification && $0.params?["running"]?.boolValue == true
        }
        #expect(running.params?["input"] == JSONValue.object(["kind": "text", "city": "London"]))
        #expect(running.params?["phase"] == "loading")
        let (overlays, _) = try await watcher.next("overlays focused on London") {
            $0.isOverlaysNotification && $0.params?["focus"]?.position == Fixtures.londonPosition
        }
        #expect(overlays.params?["type"] == "FeatureCollection")
        #expect(overlays.params?.featureIDs.contains(Fixtures.londonID) == true)
        let (settled, _) = try await watcher.next("state running: false, phase settled after London", where: isSettledState)
        #expect(settled.params?["phase"] == "populated")
        #expect(settled.params?["input"] == JSONValue.object(["kind": "text", "city": "London"]))
        #expect(settled.params?["error"] == JSONValue.null)
        #expect(settled.params?["pending"]?.intValue == 0)
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }

    @Test("fetched_at is when the answer came from OpenWeatherMap, kept by the cache; stale is false for a search")
    func freshness() async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: try TemporaryDirectory(), replay: replay))
        let before = Date()
        let first = try await daemon.call("search", ["city": "Paris"])
        let fetched = try #require(first["properties"]?["fetched_at"]?.stringValue, "\(first.serialized)")
        let when = try #require(try? Date(fetched, strategy: .iso8601), "\(fetched)")
        #expect(when.timeIntervalSince(before) > -1 && when.timeIntervalSinceNow < 1, "\(fetched) is about now")
        #expect(first["properties"]?["stale"] == .bool(false))
        let cached = try await daemon.call("search", ["city": "Paris"])
        #expect(cached["properties"]?["fetched_at"]?.stringValue == fetched, "the cached answer keeps its time")
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "paris") == 1 && stats.weatherRequests == 1, "\(stats)")
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }

    @Test("at start the watched cities are looked up: running/loading, then populated with their features")
    func startUp() async throws {
        // Seoul hangs until the watcher has seen the round running, however slow the machine.
        let replay = try await ReplayServer.start()
        _ = try await replay.setFault(city: "Seoul", "hang")
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["Seoul,KR", "London,GB"]))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)

        let (first, _) = try await watcher.next("the replayed state") { $0.isStateNotification }
        #expect(first.params?["running"]?.boolValue == true, "\(first.serialized)")
        #expect(first.params?["phase"] == "loading")
        #expect(first.params?["input"] == JSONValue.object(["kind": "cities"]))
        #expect((first.params?["pending"]?.intValue ?? 0) > 0)
        _ = try await replay.clearFaults()  // the hanging request gets its answer now

        let (settled, _) = try await watcher.next("the city round to settle", where: isSettledState)
        #expect(settled.params?["phase"] == "populated")
        #expect(settled.params?["input"] == JSONValue.object(["kind": "cities"]))
        #expect(settled.params?["pending"]?.intValue == 0)

        let overlays = try await daemon.call("overlays")
        #expect(Set(overlays.featureIDs) == [Fixtures.londonID, "owm:1835848"])
        #expect(overlays["features"]?.arrayValue?.allSatisfy { $0["properties"]?["source"] == "city" } == true)
        #expect(overlays["focus"] == JSONValue.null, "a city round never moves the map")
        // The watcher got those overlays too, before the settled state.
        let pushed = watcher.messages.last { $0.isOverlaysNotification }
        #expect(pushed?.params?["seq"] == overlays["seq"])
        #expect(Set(pushed?.params?.featureIDs ?? []) == [Fixtures.londonID, "owm:1835848"])
        #expect(try await daemon.call("state")["phase"] == "populated")
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }

    @Test("an unknown city is not_found (-32001); weatherctl exits 1 with the daemon's message")
    func unknownCity() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let error = try await remoteError { try await daemon.call("search", ["city": "Atlantis"]) }
        #expect(error.code == -32001)
        #expect(error.name == "not_found")
        #expect(error.json["data"]?["city"] == "Atlantis")

        let state = try await daemon.call("state")
        #expect(state["phase"] == "empty", "not found is an empty result, not an error: \(state.serialized)")
        #expect(state["running"]?.boolValue == false)

        let ctl = try await daemon.weatherctl(["search", "Atlantis"])
        #expect(ctl.status == 1, "\(ctl)")
        #expect(ctl.stderr == "weatherctl: city not found: Atlantis\n", "\(ctl)")
        #expect(ctl.stdout.isEmpty)
    }

    @Test("a rejected API key is unauthorized (-32002) and never shows up in logs or replies")
    func unauthorized() async throws {
        let secret = "wrong-key-abc123"
        let replay = try await ReplayServer.start(["--api-key", "right"])
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        setup.apiKey = secret
        let daemon = try await DaemonProcess.start(setup, extraArguments: ["--log-level", "debug"])

        let error = try await remoteError { try await daemon.call("search", ["city": "Paris"]) }
        #expect(error.code == -32002)
        #expect(error.name == "unauthorized")
        #expect(!error.json.serialized.contains(secret))

        let state = try await daemon.call("state")
        #expect(state["phase"] == "error")
        #expect(state["error"]?["code"]?.intValue == -32002)
        #expect(!state.serialized.contains(secret))
        #expect(!(try await daemon.call("overlays")).serialized.contains(secret))
        let ctl = try await daemon.weatherctl(["search", "Paris"])
        #expect(ctl.status == 1)
        #expect(!ctl.stderr.contains(secret) && !ctl.stdout.contains(secret))

        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
        try await daemon.process.waitForExitAndOutput()
        let log = daemon.stderrText
        #expect(log.contains("401") || log.lowercased().contains("api key"), "the rejection is logged:\n\(log)")
        #expect(log.contains("debug"), "debug logging is on:\n\(log)")
        #expect(!log.contains(secret), "the API key leaked into the log:\n\(log)")
    }

    @Test("a 5xx or an undecodable answer is upstream_unavailable (-32004)", arguments: ["500", "503", "garbage"])
    func upstreamUnavailable(failure: String) async throws {
        let replay = try await ReplayServer.start(["--fail", "Paris=\(failure)"])
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let error = try await remoteError { try await daemon.call("search", ["city": "Paris"]) }
        #expect(error.code == -32004, "\(error.json.serialized)")
        #expect(error.name == "upstream_unavailable")
        let state = try await daemon.call("state")
        #expect(state["phase"] == "error")
        #expect(state["error"]?["code"]?.intValue == -32004)
        // Other cities still work.
        #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
    }

    @Test("a 429 is rate_limited (-32003) and no request goes upstream for Retry-After seconds")
    func rateLimited() async throws {
        let replay = try await ReplayServer.start(["--fail", "Berlin=429", "--retry-after", "30"])
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let first = try await remoteError { try await daemon.call("search", ["city": "Berlin"]) }
        #expect(first.code == -32003, "\(first.json.serialized)")
        #expect(first.name == "rate_limited")
        if let retryAfter = first.json["data"]?["retry_after"]?.intValue {
            #expect((29...30).contains(retryAfter))
        }
        let before = try await replay.stats()
        #expect(before.placeRequests(for: "berlin") == 1, "the 429 came with Berlin's places")

        let again = try await remoteError { try await daemon.call("search", ["city": "Berlin"]) }
        #expect(again.code == -32003)
        let other = try await remoteError { try await daemon.call("search", ["city": "Tokyo"]) }
        #expect(other.code == -32003, "the block holds for every lookup")

        let after = try await replay.stats()
        #expect(after.requests == before.requests, "requests reached owm-replay during Retry-After: \(after)")
        #expect(after.placeRequests(for: "berlin") == 1)
        #expect(after.placeRequests(for: "tokyo") == 0)
    }
}
