import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The NWS's alerts on the real daemon against owm-replay (its recorded storm warning at Norman,
/// OK, and its `/_nws` control): asked on their own timer for the places on the map, into the
/// features and the overlays' alert areas, `alerts` and `weatherctl alerts`, failures, expiry and a
/// point outside the NWS's area. Every wait is for an event; the suite's time limit ends a hang.
@Suite("alerts", .processTimeLimit)
struct AlertsTests {
    /// The recorded storm-based warning's point (demo/owm/nws/alerts_35.35_-97.48.json).
    static let norman: JSONObject = ["name": "Norman", "state": "Oklahoma", "country": "US", "lat": .double(35.35), "lon": .double(-97.48)]
    static let warningID = "alert:urn:oid:2.49.0.1.840.0.example-storm.001.1"

    /// owm-replay and a daemon whose alerts are refreshed every `refresh`, its weather from `providers`.
    static func start(refresh: String = "1s", providers: [String] = ["openweathermap"]) async throws -> (ReplayServer, DaemonProcess) {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay)
        setup.providers = providers
        setup.alertsLines = ["refresh = \"\(refresh)\""]
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        return (replay, try await DaemonProcess.start(setup))
    }

    /// Sets owm-replay's NWS control (`/_nws`) and returns its answer.
    @discardableResult
    static func nws(_ replay: ReplayServer, _ method: String = "POST", _ query: String = "") async throws -> JSONValue {
        let (status, body) = try await httpRequest(method, port: replay.port, target: "/_nws" + query)
        #expect(status == 200, "\(body)")
        return try JSONValue.parse(Array(body.utf8))
    }

    /// The first feature of `overlays` with `id`.
    static func feature(_ overlays: JSONValue, _ id: String) -> JSONValue? {
        overlays["features"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    static func isOverlays(_ message: JSONValue) -> Bool { message["method"] == "overlays" }

    @Test("a place on the map gets its alerts and the alert's area, on the alerts' own timer; alerts and weatherctl alerts")
    func alertsOnTheMap() async throws {
        let (replay, daemon) = try await Self.start()
        try await Self.nws(replay, "POST", "?ends_in=3600")
        let watcher = try await Watcher.start(socketPath: daemon.setup.socketPath, params: ["topics": .array(["overlays"])])
        let searched = try await daemon.call("search", ["place": .object(Self.norman)])
        #expect(searched["properties"]?["alerts"] == .null, "the reply does not wait for the alerts")

        let (overlays, _) = try await watcher.next("the alerts at Norman", timeout: nil) { message in
            Self.isOverlays(message) && Self.feature(message["params"] ?? .null, Self.warningID) != nil
        }
        let params = try #require(overlays["params"])
        let place = try #require(params["features"]?.arrayValue?.first { $0["properties"]?["source"] == "text" })
        let alerts = try #require(place["properties"]?["alerts"]?.arrayValue)
        #expect(alerts.map { $0["event"] } == ["Severe Thunderstorm Warning"])
        #expect(alerts.first?["severity"] == "Severe" && alerts.first?["provider"] == "nws" && alerts.first?["sender"] == "NWS Norman OK")
        #expect(place["properties"]?["alerts_stale"] == .bool(false))
        let area = try #require(Self.feature(params, Self.warningID))
        #expect(area["geometry"]?["type"] == "Polygon")
        #expect(area["properties"]?["source"] == "alert" && area["properties"]?["severity"] == "Severe")
        #expect(params["focus"] == .null, "an alert never moves the map")

        // Asked again on its own timer, with no search: the cell's count goes on growing.
        try await replay.waitForNWS { $0["by_query"]?["point=35.35,-97.48"]?.intValue ?? 0 >= 3 }

        let answer = try await daemon.call("alerts", ["lat": .double(35.35), "lon": .double(-97.48)])
        #expect(answer["alerts"]?.arrayValue?.map { $0["event"] } == ["Severe Thunderstorm Warning"])
        let outside = try await daemon.call("alerts", ["lat": .double(52.52), "lon": .double(13.40)])
        #expect(outside == .object(["alerts": .null]), "Berlin is outside the NWS's area, not asked")
        #expect(try await Self.nws(replay, "GET")["by_query"]?["point=52.52,13.40"] == nil)

        let human = try await daemon.weatherctl(["alerts", "--at", "35.35", "-97.48"])
        #expect(human.status == 0, "\(human)")
        let lines = human.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Severe  Severe Thunderstorm Warning  until ") == true, "\(human)")
        #expect(lines.contains("  For your protection move to an interior room on the lowest floor of a building."), "\(human)")
        #expect(lines.last == "Alerts: US National Weather Service (weather.gov)", "\(human)")
        let json = try await daemon.weatherctl(["alerts", "--at", "35.35", "-97.48", "--json"])
        #expect(try JSONValue.parse(Array(json.stdout.utf8))["alerts"]?.arrayValue?.count == 1, "\(json)")
        let none = try await daemon.weatherctl(["alerts", "--at", "52.52", "13.40"])
        #expect(none.status == 0 && none.stdout.hasPrefix("no alert provider covers this place"), "\(none)")

        let state = try await daemon.call("state")
        #expect(state["services"]?.arrayValue?.first { $0["name"] == "nws" }?["usable"] == .bool(true), "\(state.serialized)")
        // One list for every service: air quality's entry (off here), then the alert provider's.
        #expect(state["services"]?.arrayValue?.map { $0["name"] } == ["air-quality", "nws"], "\(state.serialized)")
        let metrics = try await httpRequest(port: try await daemon.webPort(), "/metrics").text
        #expect(!metrics.contains("weatherd_weather_alerts{"), "no watched city: no series")
        await watcher.close()
    }

    @Test("a failed refresh keeps the last alerts, marked stale; the next good one clears the mark; state.services says so")
    func staleOnFailure() async throws {
        let (replay, daemon) = try await Self.start()
        try await Self.nws(replay, "POST", "?ends_in=3600")
        let watcher = try await Watcher.start(socketPath: daemon.setup.socketPath, params: ["topics": .array(["overlays", "state"])])
        _ = try await daemon.call("search", ["place": .object(Self.norman)])
        try await watcher.next("the alerts at Norman", timeout: nil) {
            Self.isOverlays($0) && Self.feature($0["params"] ?? .null, Self.warningID) != nil
        }

        try await Self.nws(replay, "POST", "?fail=503")
        let (stale, _) = try await watcher.next("stale alerts", timeout: nil) { message in
            Self.isOverlays(message)
                && message["params"]?["features"]?.arrayValue?.contains { $0["properties"]?["alerts_stale"] == .bool(true) } == true
        }
        let place = stale["params"]?["features"]?.arrayValue?.first { $0["properties"]?["source"] == "text" }
        #expect(place?["properties"]?["alerts"]?.arrayValue?.count == 1, "the last alerts are kept")
        #expect(Self.feature(stale["params"] ?? .null, Self.warningID) != nil, "and their area")
        let state = try await daemon.call("state")
        let nws = state["services"]?.arrayValue?.first { $0["name"] == "nws" }
        #expect(nws?["usable"] == .bool(false) && nws?["error"]?.stringValue?.contains("503") == true, "\(state.serialized)")

        // The error of a request for a point not known yet names the provider.
        do {
            _ = try await daemon.call("alerts", ["lat": .double(40.71), "lon": .double(-74.01)])
            Issue.record("the NWS fails: an error")
        } catch let error as RemoteError {
            #expect(error.json["data"]?["provider"] == "nws", "\(error.json.serialized)")
        }

        try await Self.nws(replay, "DELETE")
        try await Self.nws(replay, "POST", "?ends_in=3600")
        try await watcher.next("fresh alerts again", timeout: nil) { message in
            Self.isOverlays(message)
                && message["params"]?["features"]?.arrayValue?.contains {
                    $0["properties"]?["source"] == "text" && $0["properties"]?["alerts_stale"] == .bool(false)
                        && $0["properties"]?["alerts"]?.arrayValue?.count == 1
                } == true
        }
        await watcher.close()
    }

    @Test("an alert is dropped at its end: the feature's alerts become [] and its area leaves the overlays")
    func expiry() async throws {
        // A refresh far away: only the alert's end can change what is shown.
        let (replay, daemon) = try await Self.start(refresh: "1h")
        try await Self.nws(replay, "POST", "?ends_in=10")
        let watcher = try await Watcher.start(socketPath: daemon.setup.socketPath, params: ["topics": .array(["overlays"])])
        _ = try await daemon.call("search", ["place": .object(Self.norman)])
        try await watcher.next("the alert", timeout: nil) {
            Self.isOverlays($0) && Self.feature($0["params"] ?? .null, Self.warningID) != nil
        }
        let (after, _) = try await watcher.next("the alert dropped", timeout: nil) { message in
            Self.isOverlays(message) && Self.feature(message["params"] ?? .null, Self.warningID) == nil
        }
        let place = after["params"]?["features"]?.arrayValue?.first { $0["properties"]?["source"] == "text" }
        #expect(place?["properties"]?["alerts"] == .array([]), "\(after.serialized)")
        #expect(try await Self.nws(replay, "GET")["by_query"]?["point=35.35,-97.48"] == .integer(1), "dropped without asking again")
        await watcher.close()
    }

    @Test("a cell the NWS says is outside its area is asked once; the grid's other cells go on being refreshed")
    func outsideNotAskedAgain() async throws {
        // Open-Meteo: each grid point a feature of its own (owm-replay names points near Norman after it).
        let (replay, daemon) = try await Self.start(providers: ["open-meteo"])
        // A region grid of 3×3 points 0.1° apart around Norman; one of them the NWS turns away.
        try await Self.nws(replay, "POST", "?outside=35.45,-97.38")
        let watcher = try await Watcher.start(socketPath: daemon.setup.socketPath, params: ["topics": .array(["overlays"])])
        _ = try await daemon.call(
            "region",
            [
                "center": .object(["lat": .double(35.35), "lon": .double(-97.48)]),
                "span": .object(["lat": .double(0.3), "lon": .double(0.3)]),
            ])
        try await watcher.next("the grid", timeout: nil) { ($0["params"]?["features"]?.arrayValue?.count ?? 0) >= 9 }
        try await replay.waitForNWS { stats in
            ["point=35.25,-97.58", "point=35.35,-97.48", "point=35.45,-97.58"].allSatisfy {
                stats["by_query"]?[$0]?.intValue ?? 0 >= 3
            }
        }
        let stats = try await Self.nws(replay, "GET")
        #expect(stats["by_query"]?["point=35.45,-97.38"] == .integer(1), "\(stats.serialized)")
        let overlays = try await daemon.call("overlays")
        let turnedAway = overlays["features"]?.arrayValue?.first { feature in
            let position = feature["geometry"]?["coordinates"]?.arrayValue?.compactMap(\.doubleValue) ?? []
            return position.count == 2 && abs(position[0] + 97.38) < 0.001 && abs(position[1] - 35.45) < 0.001
        }
        #expect(turnedAway?["properties"]?["alerts"] == .null, "\(overlays.serialized)")
        await watcher.close()
    }

    @Test(
        "a zone-based alert (the recorded Portland Flood Watch): its zones asked once each, its area their MultiPolygon; alerts by city name"
    )
    func zones() async throws {
        let (replay, daemon) = try await Self.start()
        try await Self.nws(replay, "POST", "?ends_in=3600")
        let watcher = try await Watcher.start(socketPath: daemon.setup.socketPath, params: ["topics": .array(["overlays"])])
        let portland: JSONObject = ["name": "Portland", "state": "Oregon", "country": "US", "lat": .double(45.52), "lon": .double(-122.68)]
        _ = try await daemon.call("search", ["place": .object(portland)])
        let id = "alert:NWS-IDP-PROD-3965873-3369046"
        let (overlays, _) = try await watcher.next("the Flood Watch's area", timeout: nil) {
            Self.isOverlays($0) && Self.feature($0["params"] ?? .null, id) != nil
        }
        let area = try #require(Self.feature(overlays["params"] ?? .null, id))
        #expect(area["geometry"]?["type"] == "MultiPolygon")
        #expect(area["geometry"]?["coordinates"]?.arrayValue?.count == 11, "one polygon per zone")
        #expect(area["properties"]?["event"] == "Flood Watch")
        // Refreshed every second, the alert's zones are not asked again.
        try await replay.waitForNWS { $0["by_query"]?["point=45.52,-122.68"]?.intValue ?? 0 >= 3 }
        let stats = try await Self.nws(replay, "GET")
        let zoneCounts = (stats["by_query"]?.objectValue?.members ?? []).filter { $0.key.hasPrefix("zone:") }.map(\.value)
        #expect(zoneCounts.count == 11 && zoneCounts.allSatisfy { $0 == .integer(1) }, "\(stats.serialized)")

        let byName = try await daemon.call("alerts", ["city": "Norman,US"])
        #expect(byName["alerts"]?.arrayValue?.map { $0["event"] } == ["Severe Thunderstorm Warning"], "\(byName.serialized)")
        await watcher.close()
    }

    @Test("markup in a headline stays text: the daemon passes it on as it came")
    func markupInHeadline() async throws {
        let (replay, daemon) = try await Self.start()
        let headline = #"<img src=x onerror="alert(1)"><b>Storm</b> & more"#
        try await Self.nws(replay, "POST", "?ends_in=3600&headline=" + URLQuery.encodeForTest(headline))
        let answer = try await daemon.call("alerts", ["lat": .double(35.35), "lon": .double(-97.48)])
        #expect(answer["alerts"]?.arrayValue?.first?["headline"] == .string(headline))
    }
}

extension ReplayServer {
    /// Waits until owm-replay's NWS counts (`/_nws`) satisfy `condition`, asking again after each
    /// answer (no deadline: the suite's time limit ends a hang).
    func waitForNWS(_ condition: (JSONValue) -> Bool) async throws {
        while true {
            let (_, body) = try await httpRequest("GET", port: port, target: "/_nws")
            if condition(try JSONValue.parse(Array(body.utf8))) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

enum URLQuery {
    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func encodeForTest(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
