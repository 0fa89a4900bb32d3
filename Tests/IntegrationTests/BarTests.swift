import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `weatherctl bar` against the real daemon: what it writes as things change, reconnecting, and
/// how it ends.
@Suite("weatherctl bar")
struct BarTests {
    /// Starts the daemon and awaits its watched cities' first round, so a bar started then shows
    /// them from its first line.
    func startSettled(_ setup: DaemonSetup) async throws -> DaemonProcess {
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["state"])])
        try await watcher.next("the city round to settle", where: isSettledState)
        await watcher.close()
        return daemon
    }

    /// Starts `weatherctl bar` with `arguments` against `socket`.
    func startBar(_ socket: String, _ arguments: [String]) async throws -> ChildProcess {
        try await ChildProcess(
            try TestEnvironment.binary("weatherctl"), ["--socket", socket, "bar"] + arguments,
            environment: TestEnvironment.childEnvironment(["TZ": "UTC"]))
    }

    @Test("text: the first watched city, then a search's place, one line per change")
    func textFollowsTheSearch() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await startSettled(DaemonSetup(directory: directory, replay: replay, cities: ["London"]))
        let bar = try await startBar(daemon.socketPath, ["--format", "text", "--template", "{name} {temperature}{unit} {description}"])
        _ = try await bar.waitForLine(containing: "London 9°C overcast clouds", on: \.stdout)
        #expect(try await daemon.weatherctl(["search", "Paris"]).status == 0)
        _ = try await bar.waitForLine(containing: "Paris 7°C broken clouds", on: \.stdout)
        // A region search keeps the search's place; a city added does not change what is shown.
        #expect(try await daemon.weatherctl(["cities", "add", "Berlin"]).status == 0)
        #expect(try await daemon.weatherctl(["search", "Berlin"]).status == 0)
        _ = try await bar.waitForLine(containing: "Berlin 3°C", on: \.stdout)
        let lines = bar.stdoutText.split(separator: "\n")
        #expect(
            lines == ["London 9°C overcast clouds", "Paris 7°C broken clouds", "Berlin 3°C overcast clouds"],
            "one line per change, no repeats")
        bar.send(SIGTERM)
        let ended = try await bar.waitForExit()
        #expect(ended.exitedNormally && ended.status == 0, "SIGTERM: exit 0 (\(ended))")
    }

    @Test("waybar: one JSON object per line, with the next hours in the tooltip once the forecast is known")
    func waybarObjects() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await startSettled(DaemonSetup(directory: directory, replay: replay, cities: ["London"]))
        let bar = try await startBar(daemon.socketPath, [])
        let line = try await bar.waitForLine(containing: "\"percentage\"", on: \.stdout)
        let object = try JSONValue.parse(Array(line.utf8))
        #expect(object["text"] == "☁ 9°C")
        #expect(object["class"] == .array(["clouds"]))
        #expect(object["alt"] == "04n")
        let tooltip = object["tooltip"]?.stringValue ?? ""
        #expect(
            tooltip.hasPrefix("London, GB\n☁ overcast clouds, 8.9 °C (feels like 7.9 °C)\nhumidity 90%  wind 2.1 m/s W\n"), "\(tooltip)")
        #expect(tooltip.split(separator: "\n").count >= 5, "the next hours: \(tooltip)")
        for text in bar.stdoutText.split(separator: "\n") {
            #expect(throws: Never.self, "every line is one JSON object") { try JSONValue.parse(Array(text.utf8)) }
        }
    }

    @Test("no daemon: shown as unavailable; it connects once the daemon starts, and says so again when it goes")
    func reconnects() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let bar = try await startBar(setup.socketPath, ["--format", "text"])
        _ = try await bar.waitForLine(containing: "weatherd unavailable", on: \.stdout)
        let daemon = try await DaemonProcess.start(setup)
        _ = try await bar.waitForLine(containing: "☁ 9°C", on: \.stdout, timeout: .seconds(20))
        try await daemon.kill()
        _ = try await bar.stdout.wait(for: "a second 'weatherd unavailable'", timeout: .seconds(10)) { output in
            output.text.components(separatedBy: "weatherd unavailable\n").count == 3 ? true : nil
        }
        #expect(bar.isRunning, "it never dies on its own")
        bar.send(SIGTERM)
        #expect(try await bar.waitForExit().status == 0)
    }

    @Test("it exits 0 at once when its output closes, connected or waiting to reconnect", arguments: [true, false])
    func outputClosed(daemonRunning: Bool) async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = daemonRunning ? try await startSettled(setup) : nil
        // head reads one line and exits: the bar writes nothing more (what it shows does not
        // change), so only its output closing can end it.
        let weatherctl = try TestEnvironment.binary("weatherctl")
        let result = try await runCommand(
            "/bin/bash",
            ["-c", #""$0" --socket "$1" bar --format text | head -n 1; echo "bar exited ${PIPESTATUS[0]}""#, weatherctl, setup.socketPath],
            environment: TestEnvironment.childEnvironment())
        #expect(result.stdout == (daemonRunning ? "☁ 9°C\n" : "weatherd unavailable\n") + "bar exited 0\n", "\(result)")
        _ = daemon
    }

    @Test("SIGUSR1 steps to the next watched city, as button 1 does; SIGUSR2 goes back, as button 3")
    func clickSignals() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await startSettled(DaemonSetup(directory: directory, replay: replay, cities: ["London", "Paris"]))
        let bar = try await startBar(daemon.socketPath, ["--format", "text", "--template", "{name}"])
        _ = try await bar.waitForLine(containing: "London", on: \.stdout)
        bar.send(SIGUSR1)
        _ = try await bar.waitForLine(containing: "Paris", on: \.stdout)
        bar.send(SIGUSR2)
        _ = try await bar.stdout.wait(for: "London again", timeout: .seconds(10)) { $0.text == "London\nParis\nLondon\n" ? true : nil }
        bar.send(SIGTERM)
        #expect(try await bar.waitForExit().status == 0)
    }

    @Test("--city: a watched city by its name; a place that is not watched is asked with forecast and shown by its step in progress")
    func city() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await startSettled(DaemonSetup(directory: directory, replay: replay, cities: ["London", "Paris"]))
        let watched = try await startBar(
            daemon.socketPath, ["--format", "text", "--city", "paris", "--template", "{name} {temperature}{unit}"])
        _ = try await watched.waitForLine(containing: "Paris 7°C", on: \.stdout)
        let other = try await startBar(daemon.socketPath, ["--format", "text", "--city", "Berlin", "--template", "{name} {symbol}"])
        let line = try await other.waitForLine(containing: "Berlin", on: \.stdout)
        #expect(line.count > "Berlin ".count, "a symbol from the forecast's step: \(line)")
        let overlays = try await daemon.call("overlays")
        #expect(overlays.featureIDs.count == 2, "the lookup changed no overlays: \(overlays.serialized)")
        for bar in [watched, other] {
            bar.send(SIGTERM)
            #expect(try await bar.waitForExit().status == 0)
        }
    }

    @Test("a location (from a daemon without state.location: gpsd's last fix) wins over the watched city, asked with forecast there")
    func location() async throws {
        let gps = try await GPSFake.start(NMEALog.bu353s4)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        setup.gpsd = GPSDSettings(port: gps.port)
        let daemon = try await startSettled(setup)
        let bar = try await startBar(daemon.socketPath, ["--format", "text", "--template", "{name}"])
        // The fix is near Hamilton, New Zealand; the watched city is shown until its weather is known.
        _ = try await bar.waitForLine(containing: "Hamilton", on: \.stdout, timeout: .seconds(30))
        #expect(bar.stdoutText.hasSuffix("London\nHamilton\n"), "\(bar.stdoutText)")
        let overlays = try await daemon.call("overlays")
        #expect(overlays.featureIDs == [Fixtures.londonID], "the location's weather changed no overlays")
        bar.send(SIGTERM)
        #expect(try await bar.waitForExit().status == 0)
    }

    @Test("usage errors exit 2: an unknown placeholder, --city with --location, an unknown format")
    func usage() async throws {
        let directory = try TemporaryDirectory()
        for arguments in [["--template", "{symbol} {bogus}"], ["--city", "Paris", "--location"], ["--format", "lemonbar"]] {
            let result = try await runWeatherctl(["--socket", directory.file("none.sock"), "bar"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
        }
        let result = try await runWeatherctl(["--socket", directory.file("none.sock"), "bar", "--template", "{bogus}"])
        #expect(result.stderr.contains("unknown placeholder {bogus}"), "\(result)")
    }
}
