import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The `forecast` method against the real daemon and owm-replay (its recorded Paris forecast and
/// synthesized ones), and `weatherctl forecast`.
@Suite("forecast")
struct ForecastTests {
    @Test("forecast for Paris answers the recorded steps; a second call is cached; overlays and state stay")
    func paris() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay)
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        let daemon = try await DaemonProcess.start(setup)
        let webPort = try await daemon.webPort()
        let overlaysBefore = try await daemon.call("overlays")
        let stateBefore = try await daemon.call("state")

        let feature = try await daemon.call("forecast", ["city": "Paris", "hours": .integer(120)])
        #expect(feature["id"] == "owm:2988507")
        #expect(feature["properties"]?["name"] == "Paris" && feature["properties"]?["source"] == "text")
        let steps = try #require(feature["properties"]?["forecast"]?.arrayValue)
        // The recording holds 2 of its 40 steps: 2018-12-01 00:00 and 2018-12-05 21:00 (117 h later).
        #expect(steps.map { $0["at"]?.stringValue } == ["2018-12-01T00:00:00Z", "2018-12-05T21:00:00Z"])
        #expect(steps[0]["temperature"]?.doubleValue == 6.71 && steps[0]["rain_3h"]?.doubleValue == 0.035)
        #expect(steps[0]["symbol"] == "🌧" && steps[0]["pop"] == .null && steps[0]["snow_3h"] == .null)

        // Within 24 hours of the first step: the first alone; from the cache (the same request).
        let day = try await daemon.call("forecast", ["city": " paris ", "hours": .integer(24)])
        #expect(day["properties"]?["forecast"]?.arrayValue?.count == 1)
        let stats = try await replay.stats()
        #expect(stats.forecastRequests == 1 && stats.placeRequests(for: "paris") == 1, "\(stats)")
        #expect(stats.weatherRequests == 0, "a forecast asks no current weather: \(stats)")

        #expect(try await daemon.call("overlays") == overlaysBefore)
        let state = try await daemon.call("state")
        // Its requests count in the budget and the providers' counts; nothing else changes.
        let unchanged: (JSONValue) -> JSONValue = {
            .object($0.objectValue!.filtering { !["updated_at", "budget", "providers"].contains($0) })
        }
        #expect(unchanged(state) == unchanged(stateBefore))
        let provider = state["providers"]?.arrayValue?.first
        #expect(provider?["used_minute"]?.intValue == 2 && provider?["usable"]?.boolValue == true, "\(state.serialized)")

        let metrics = try await httpRequest(port: webPort, "/metrics").text
        #expect(
            metrics.contains(#"weatherd_upstream_requests_total{endpoint="forecast",outcome="ok",provider="openweathermap"} 1"#),
            "\(metrics)")

        let human = try await daemon.weatherctl(["forecast", "Paris", "--hours", "120"])
        #expect(human.status == 0, "\(human)")
        let lines = human.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(human)")
        #expect(lines.first == "Paris, FR", "\(human)")
        #expect(
            lines.dropFirst().allSatisfy { $0.contains("🌧") && $0.contains("°C") && $0.contains("precip") && $0.contains("wind") },
            "\(human)")
        let json = try await daemon.weatherctl(["forecast", "Paris", "--json"])
        #expect(try JSONValue.parse(Array(json.stdout.utf8)) == day, "\(json)")
        #expect(try await replay.stats().forecastRequests == 1)
    }

    @Test("forecast at a point: synthesized 3-hour steps, as many as the hours ask; errors as for search")
    func pointAndErrors() async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: try TemporaryDirectory(), replay: replay))

        let feature = try await daemon.call("forecast", ["lat": .double(10.5), "lon": .double(20.25), "hours": .integer(12)])
        #expect(feature["id"] == "pt:10.5000,20.2500")
        let steps = try #require(feature["properties"]?["forecast"]?.arrayValue)
        #expect(steps.count == 4, "\(feature.serialized)")
        let times = steps.compactMap { $0["at"]?.stringValue }.compactMap { try? Date($0, strategy: Date.ISO8601FormatStyle()) }
        #expect(times.count == 4 && zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 10800 })
        #expect(steps.allSatisfy { $0["temperature"]?.doubleValue != nil && $0["pop"]?.doubleValue != nil })

        let human = try await daemon.weatherctl(["forecast", "--at", "10.5", "20.25"])
        #expect(human.status == 0 && human.stdout.split(separator: "\n").count == 1 + 8, "\(human)")

        let unknown = try await remoteError { try await daemon.call("forecast", ["city": "Atlantis"]) }
        #expect(unknown.code == -32001, "\(unknown)")
        let missing = try await daemon.weatherctl(["forecast", "Atlantis"])
        #expect(missing.status == 1 && missing.stderr.contains("not found"), "\(missing)")
        let badHours = try await remoteError { try await daemon.call("forecast", ["city": "Paris", "hours": .integer(121)]) }
        #expect(badHours.code == -32602, "\(badHours)")
        let usage = try await daemon.weatherctl(["forecast", "Paris", "--hours", "2"])
        #expect(usage.status == 2, "\(usage)")
    }
}

extension JSONObject {
    fileprivate func filtering(_ keep: (String) -> Bool) -> JSONObject {
        var object = JSONObject()
        for (key, value) in members where keep(key) { object[key] = value }
        return object
    }
}
