import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// `weatherctl`'s exit statuses and output.
@Suite("weatherctl")
struct WeatherctlTests {
    @Test("no daemon: exit 69 with cannot connect and a hint, for --socket and $WEATHERD_SOCKET")
    func unavailable() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("none.sock")
        for (arguments, environment) in [(["--socket", socket, "state"], [:]), (["state"], ["WEATHERD_SOCKET": socket])] {
            let result = try await runWeatherctl(arguments, environment: environment)
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr.hasPrefix("weatherctl: cannot connect to \(socket): "), "\(result)")
            #expect(result.stderr.contains("(is weatherd running?)"), "\(result)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("a stand-in that marks its answers as sample data (owm-replay --mark-sample) is said so in state; real data is not")
    func sampleData() async throws {
        for marked in [true, false] {
            let replay = try await ReplayServer.start(marked ? ["--mark-sample"] : [])
            let directory = try TemporaryDirectory()
            let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
            #expect(try await daemon.weatherctl(["search", "London"]).status == 0)
            let state = try await daemon.call("state")
            let first = try #require(state["providers"]?.arrayValue?.first, "\(state.serialized)")
            #expect(first["sample_data"] == (marked ? .bool(true) : nil), "\(state.serialized)")
            let line = try await daemon.weatherctl(["state"])
            #expect(line.stdout.contains("providers openweathermap ok (sample data)") == marked, "\(line)")
        }
    }

    @Test(
        "usage errors exit 2, found before connecting (there is no daemon here): empty or blank names too",
        arguments: [
            ["search"], ["bogus"], ["cities", "add"], ["region", "x", "y"], ["search", ""], ["search", " ", "\t"],
            ["places", ""], ["places", "  "], ["forecast", ""], ["forecast", " "], ["cities", "add", ""],
            ["cities", "remove", "  "], ["search", "Lon\u{7}don"],
        ])
    func usage(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        let result = try await runWeatherctl(["--socket", directory.file("none.sock")] + arguments)
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(!result.stderr.isEmpty)
    }

    @Test("search, state --json, overlays and watch --geojson print what the spec says")
    func output() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let search = try await daemon.weatherctl(["search", "London"])
        #expect(search.status == 0, "\(search)")
        #expect(
            search.stdout == """
                London, GB  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s
                (4 more places named London: weatherctl places London)

                """, "\(search)")
        let searchJSON = try await daemon.weatherctl(["search", "London", "--json"])
        #expect(try JSONValue.parse(Array(searchJSON.stdout.utf8))["id"]?.stringValue == Fixtures.londonID)

        let state = try await daemon.weatherctl(["state", "--json"])
        #expect(state.status == 0, "\(state)")
        #expect(state.stdout.hasSuffix("\n") && state.stdout.split(separator: "\n").count == 1)
        let stateJSON = try JSONValue.parse(Array(state.stdout.utf8))
        #expect(stateJSON == (try await daemon.call("state")), "the protocol object")
        #expect(stateJSON["input"] == JSONValue.object(["kind": "text", "city": "London"]))
        let human = try await daemon.weatherctl(["state"])
        #expect(human.stdout.hasPrefix("idle  phase populated  input text \"London\""), "\(human)")

        let overlays = try await daemon.weatherctl(["overlays"])
        let overlaysJSON = try JSONValue.parse(Array(overlays.stdout.utf8))
        #expect(overlaysJSON["type"] == "FeatureCollection")
        #expect(overlaysJSON.featureIDs == [Fixtures.londonID])

        // watch --geojson runs until stopped: read its first line, then end it.
        let watch = try await ChildProcess(
            try TestEnvironment.binary("weatherctl"), ["--socket", daemon.socketPath, "watch", "--geojson"],
            environment: TestEnvironment.childEnvironment())
        let line = try await watch.waitForLine(containing: "{", on: \.stdout)
        let collection = try JSONValue.parse(Array(line.utf8))
        #expect(collection["type"] == "FeatureCollection", "\(line)")
        #expect(collection["features"]?.arrayValue?.first?["id"]?.stringValue == Fixtures.londonID)
        #expect(collection["seq"] == overlaysJSON["seq"])
        #expect(collection["method"] == nil, "only the FeatureCollection, not the notification")
        watch.send(SIGTERM)
        try await watch.waitForExit()

        // Plain watch prints whole notifications, one per line.
        let plain = try await ChildProcess(
            try TestEnvironment.binary("weatherctl"), ["--socket", daemon.socketPath, "watch", "--topics", "state"],
            environment: TestEnvironment.childEnvironment())
        let notification = try JSONValue.parse(Array(try await plain.waitForLine(containing: "{", on: \.stdout).utf8))
        #expect(notification["method"] == "state")
        #expect(notification["params"]?["phase"] == "populated")
        plain.send(SIGTERM)
        try await plain.waitForExit()
    }
}
