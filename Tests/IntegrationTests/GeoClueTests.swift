import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// GeoClue end to end: Debian's real GeoClue 2.6 on a private D-Bus bus (``GeoClueBus``: its NMEA
/// source fed by the test near Hamilton, NZ), weatherd asking it over sd-bus as its own agent,
/// owm-replay as OpenWeatherMap. GeoClue runs as root in a mount namespace of its own (to see the
/// test's geoclue.conf): the tests need root, as `make test` has in CI. Serialized: each test
/// runs a bus, a GeoClue and a daemon of its own.
@Suite("GeoClue", .serialized, .processTimeLimit)
struct GeoClueTests {
    static let hamiltonID = "owm:2190324"
    /// How long an awaited event may take on a busy machine: a hang guard, not a claim on speed.
    static let patience = Duration.seconds(120)

    /// GeoClue's entry of `location_sources` in a state.
    static func entry(_ state: JSONValue?) -> JSONValue? {
        state?["location_sources"]?.arrayValue?.first { $0["name"] == "geoclue" }
    }

    private func daemon(_ bus: GeoClueBus, _ directory: TemporaryDirectory, replay: ReplayServer) async throws -> DaemonProcess {
        var setup = DaemonSetup(directory: directory, replay: replay)
        // GeoClue's NMEA source has the exact level: asked for "city", GeoClue would not start it.
        setup.geoclueLines = ["enabled = true", #"accuracy = "exact""#]
        return try await DaemonProcess.start(setup, environment: bus.environment)
    }

    @Test(
        "a fix from GeoClue is the fused location: locate names geoclue, weatherctl prints it; GeoClue killed shows connected false, then it comes back"
    )
    func fixReachesLocate() async throws {
        let directory = try TemporaryDirectory()
        let bus = try await GeoClueBus.start(in: directory)
        defer { bus.stop() }
        let replay = try await ReplayServer.start()
        let daemon = try await daemon(bus, directory, replay: replay)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)

        _ = try await daemon.process.waitForLine(
            containing: "GeoClue: client started as weatherd, accuracy exact", on: \.stderr, timeout: Self.patience)
        try await watcher.next("a state whose location comes from GeoClue", timeout: Self.patience) {
            $0.isStateNotification && $0.params?["location"]?["source"] == "geoclue"
        }
        let state = try await daemon.call("state")
        #expect(Self.entry(state)?["enabled"] == .bool(true), "\(state.serialized)")
        #expect(Self.entry(state)?["connected"] == .bool(true), "\(state.serialized)")
        #expect(Self.entry(state)?["last_fix_at"]?.stringValue != nil, "\(state.serialized)")
        let (lat, lon) = (state["location"]?["lat"]?.doubleValue ?? 0, state["location"]?["lon"]?.doubleValue ?? 0)
        #expect(abs(lat + 37.7848) < 0.0001 && abs(lon - 175.3149) < 0.0001, "the NMEA feed's position: \(state.serialized)")

        let feature = try await daemon.call("locate", ["source": "geoclue", "max_age": .integer(600), "timeout": .integer(30)])
        #expect(feature["id"]?.stringValue == Self.hamiltonID, "\(feature.serialized)")
        #expect(feature["properties"]?["fix"]?["source"] == "geoclue", "\(feature.serialized)")
        let human = try await daemon.weatherctl(["locate", "--max-age", "600", "--timeout", "30"])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.hasPrefix("Hamilton, NZ"), "\(human)")
        #expect(human.stdout.split(separator: "\n").dropFirst().first?.hasPrefix("from geoclue  ±") == true, "\(human)")

        // GeoClue dies: the entry says so, nothing else goes.
        bus.killGeoClue()
        try await watcher.next("a state with geoclue not connected", timeout: Self.patience) {
            $0.isStateNotification && Self.entry($0.params)?["connected"] == .bool(false)
        }
        _ = try await daemon.process.waitForLine(containing: "GeoClue: the client ended", on: \.stderr, timeout: Self.patience)
        #expect(try await daemon.call("state")["location"]?["source"] == "geoclue", "the daemon serves on; the last fix stays")
        // The next attempt (after the backoff) starts GeoClue again through the bus: connected again.
        try await watcher.next("a state with geoclue connected again", timeout: Self.patience) {
            $0.isStateNotification && Self.entry($0.params)?["connected"] == .bool(true)
        }

        await watcher.close()
        #expect(try await daemon.terminate(timeout: .seconds(60)).status == 0, "\(daemon.stderrText)")
    }

    @Test(
        "GeoClue refusing weatherd as its agent: one log line saying what to add to geoclue.conf; the daemon serves on, geoclue not connected"
    )
    func refusedAgent() async throws {
        let directory = try TemporaryDirectory()
        let bus = try await GeoClueBus.start(in: directory, permissions: .init(agent: false, allowed: nil))
        defer { bus.stop() }
        let replay = try await ReplayServer.start()
        let daemon = try await daemon(bus, directory, replay: replay)

        let line = try await daemon.process.waitForLine(
            containing: "GeoClue does not accept weatherd as its agent", on: \.stderr, timeout: Self.patience)
        #expect(line.contains("/etc/geoclue/geoclue.conf"), "\(line)")
        #expect(line.contains("[agent] whitelist=…;weatherd"), "\(line)")
        #expect(line.contains("[weatherd] with allowed=true, system=true, users="), "\(line)")
        let state = try await daemon.call("state")
        #expect(Self.entry(state) == .object(["name": "geoclue", "enabled": .bool(true), "connected": .bool(false), "last_fix_at": .null]))
        #expect(state["location"] == .null)
        let feature = try await daemon.call("search", ["city": "London"])
        #expect(feature["properties"]?["name"] == "London", "the daemon serves on")
        #expect(daemon.stderrText.components(separatedBy: "GeoClue does not accept").count == 2, "one line: \(daemon.stderrText)")
        #expect(try await daemon.terminate(timeout: .seconds(60)).status == 0, "\(daemon.stderrText)")
    }

    @Test("GeoClue absent from the bus: one line says to install it; the daemon serves on")
    func absent() async throws {
        let directory = try TemporaryDirectory()
        let bus = try await GeoClueBus.start(in: directory)
        defer { bus.stop() }
        try FileManager.default.removeItem(atPath: directory.file("services/org.freedesktop.GeoClue2.service"))
        let replay = try await ReplayServer.start()
        let daemon = try await daemon(bus, directory, replay: replay)
        let line = try await daemon.process.waitForLine(
            containing: "GeoClue: org.freedesktop.GeoClue2 is not on the system D-Bus", on: \.stderr, timeout: Self.patience)
        #expect(line.contains("install GeoClue (Debian: geoclue-2.0)"), "\(line)")
        #expect(Self.entry(try await daemon.call("state"))?["connected"] == .bool(false))
        #expect(try await daemon.terminate(timeout: .seconds(60)).status == 0, "\(daemon.stderrText)")
    }
}
