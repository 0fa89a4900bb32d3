import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// `location.report` end to end: weatherd without gpsd, a client reporting its position over the
/// socket, owm-replay as OpenWeatherMap.
@Suite("location.report")
struct LocationReportIntegrationTests {
    /// Hamilton, NZ (the recorded city within 25 km of it is owm:2190324).
    static let hamilton: JSONObject = ["lat": .double(-37.7848), "lon": .double(175.3149)]

    @Test("a report is the fused location: locate with max_age answers at once with it; inaccurate and bad reports are refused")
    func reportThenLocate() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: try freeTCPPort(), enabled: false)
        setup.webLines = [#"listen = "127.0.0.1:0""#]
        let daemon = try await DaemonProcess.start(setup)
        let webPort = try await daemon.webPort()

        var report = Self.hamilton
        report["horizontal_error"] = .double(40)
        report["source"] = "browser"
        #expect(try await daemon.call("location.report", report) == .object(["accepted": .bool(true)]))

        let state = try await daemon.call("state")
        #expect(state["location"]?["source"] == "browser", "\(state.serialized)")
        #expect(state["location"]?["horizontal_error"]?.doubleValue == 40)
        #expect(state["location"]?["at"]?.stringValue != nil)
        let sources = state["location_sources"]?.arrayValue ?? []
        #expect(sources.compactMap { $0["name"]?.stringValue } == ["gpsd", "owntracks", "geoclue", "client"], "\(state.serialized)")
        #expect(sources.last?["last_fix_at"]?.stringValue != nil)
        #expect(sources.first?["enabled"] == .bool(false))

        let feature = try await daemon.call("locate", ["max_age": .integer(600), "timeout": .integer(5)])
        #expect(feature["properties"]?["source"] == "location", "\(feature.serialized)")
        #expect(feature["properties"]?["fix"]?["source"] == "browser")
        #expect(feature["properties"]?["fix"]?["mode"] == .null)
        #expect(feature["properties"]?["fix"]?["horizontal_error"]?.doubleValue == 40)

        let human = try await daemon.weatherctl(["locate", "--max-age", "600", "--timeout", "5"])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.split(separator: "\n").dropFirst().first == "from browser  ±40 m", "\(human)")

        // Coarser than location.report_max_horizontal_error (5000 m): refused with its reason.
        var coarse = Self.hamilton
        coarse["horizontal_error"] = .double(25_000)
        #expect(
            try await daemon.call("location.report", coarse) == .object(["accepted": .bool(false), "reason": "inaccurate"]))
        // Older than location.max_age (2 minutes).
        var old = Self.hamilton
        old["horizontal_error"] = .double(10)
        old["at"] = "2020-01-01T00:00:00Z"
        #expect(try await daemon.call("location.report", old) == .object(["accepted": .bool(false), "reason": "too_old"]))

        for bad: JSONObject in [
            ["lat": .double(91), "lon": .double(0), "horizontal_error": .double(10)],
            ["lat": .double(0), "lon": .double(180.5), "horizontal_error": .double(10)],
            ["lon": .double(0), "horizontal_error": .double(10)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(0)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": "40"],
            ["lat": .double(0), "lon": .double(0)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(10), "at": "yesterday"],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(10), "source": "gpsd"],
        ] {
            let error = try await remoteError { try await daemon.call("location.report", bad) }
            #expect(error.code == -32602, "\(bad): \(error.json.serialized)")
        }
        let unknownSource = try await remoteError { try await daemon.call("locate", ["source": "satellite"]) }
        #expect(unknownSource.code == -32602, "\(unknownSource.json.serialized)")
        let disabled = try await remoteError { try await daemon.call("locate", ["source": "gpsd"]) }
        #expect(disabled.code == -32006, "\(disabled.json.serialized)")

        // The refused reports changed nothing.
        #expect(try await daemon.call("state")["location"]?["horizontal_error"]?.doubleValue == 40)

        // Counted by kind and verdict (the invalid ones are no fixes).
        let metrics = try await httpRequest(port: webPort, "/metrics").text
        func fixes(_ source: String, accepted: String) -> String? {
            metrics.split(separator: "\n").first {
                $0.hasPrefix("weatherd_location_fixes_total{") && $0.contains(#"source="\#(source)""#)
                    && $0.contains(#"accepted="\#(accepted)""#)
            }.flatMap { $0.split(separator: " ").last.map(String.init) }
        }
        #expect(fixes("client", accepted: "true") == "1", "\(metrics)")
        #expect(fixes("client", accepted: "false") == "2", "\(metrics)")
        #expect(fixes("gpsd", accepted: "true") == "0", "\(metrics)")
        #expect(metrics.contains("# HELP weatherd_location_fixes_total "), "\(metrics)")
    }

    @Test("quiet watchers: a client reporting the same place, its time only newer, wakes a watcher at most once every 10 s")
    func quietWatchers() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: try freeTCPPort(), enabled: false)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["state"]), "replay": .bool(true)])
        try await watcher.next("the first settled state", timeout: .seconds(60), where: isSettledState)

        // The same place again and again, each report dated on arrival: only its time changes.
        var report = Self.hamilton
        report["horizontal_error"] = .double(20)
        let started = ContinuousClock.now
        let reports = 30
        for _ in 0..<reports {
            #expect(try await daemon.call("location.report", report) == .object(["accepted": .bool(true)]))
        }
        let elapsed = started.duration(to: .now)
        let latest = try await daemon.call("state")["location"]?["at"]
        // A search is news at once, and carries the latest report with it.
        _ = try await daemon.call("search", ["city": "London"])
        let (marker, before) = try await watcher.next("the search's state", timeout: .seconds(60)) {
            $0.isStateNotification && $0.params?["input"]?["kind"] == "text"
        }
        #expect(marker.params?["location"]?["at"] == latest, "the latest report goes out with the next change")
        let located = before.filter { $0.isStateNotification && $0.params?["location"] != .null }
        // Once at once, then at most once every 10 s (the machine may be slow: the bound grows with the time taken).
        let allowed = 2 + Int(elapsed / .seconds(10))
        #expect(located.count <= allowed, "\(located.count) notifications for \(reports) reports in \(elapsed): \(describe(located))")
        await watcher.close()
    }
}
