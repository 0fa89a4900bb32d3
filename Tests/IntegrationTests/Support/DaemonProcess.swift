import Foundation
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A weatherd configuration written into a test's temporary directory: the socket is
/// `DIR/weatherd.sock`, the state directory `DIR/state`, gpsd is off unless `gpsd` is set.
struct DaemonSetup: Sendable {
    let directory: TemporaryDirectory
    var cities: [String] = []
    /// `openweathermap.base_url`, and Open-Meteo's URLs unless set apart below.
    var baseURL: String
    /// `open-meteo.base_url` and `open-meteo.geocoding_url` (nil: `baseURL`, the stand-in serves both).
    var openMeteoURL: String?
    var openMeteoGeocodingURL: String?
    /// `nil`: no `api_key` line.
    var apiKey: String? = "integration-test-key"
    var maxClients: Int?
    /// `socket.mode`, e.g. `"0666"` for a client running as another user (nil: the default).
    var socketMode: String?
    /// The top-level `refresh` (nil: the default).
    var refresh: String?
    /// `weather.providers`: OpenWeatherMap alone unless a test asks for more (the tests of one
    /// provider's faults see that provider's errors, never a failover). `nil`: no `providers` line
    /// (the daemon's default order).
    var providers: [String]? = ["openweathermap"]
    /// More TOML lines for the `[weather]` table, e.g. `cache_ttl = "0s"`.
    var weatherLines: [String] = []
    /// More TOML lines for the `[openweathermap]` table.
    var openWeatherMapLines: [String] = []
    /// More TOML lines for the `[open-meteo]` table (its URLs are the stand-in's, so nothing ever
    /// reaches the internet), e.g. `requests_per_day = 3`.
    var openMeteoLines: [String] = []
    /// `air-quality.enabled`: off unless a test asks for it (its URL is the stand-in's either way).
    var airQuality = false
    /// More TOML lines for the `[air-quality]` table, e.g. `scale = "us"`.
    var airQualityLines: [String] = []
    /// The `[gpsd]` table; `nil` (the default): gpsd is off (`enabled = false`).
    var gpsd: GPSDSettings?
    /// TOML lines for a `[region]` table (none: no table, the defaults), e.g. `debounce = "250ms"`.
    var regionLines: [String] = []
    /// TOML lines for a `[web]` table (none: no table, the listener is off), e.g. `listen = "127.0.0.1:0"`.
    var webLines: [String] = []
    /// TOML lines for an `[mqtt]` table (none: no table, MQTT is off), e.g. `broker = "mqtt://127.0.0.1:1883"`.
    var mqttLines: [String] = []
    /// More TOML lines for the `[alerts]` table (its `nws_url` is the stand-in's, so nothing ever
    /// reaches the internet), e.g. `refresh = "2s"`.
    var alertsLines: [String] = []
    /// TOML lines for an `[owntracks]` table (none: no table, OwnTracks is off), e.g. `http = true`.
    var ownTracksLines: [String] = []
    /// TOML lines for a `[geoclue]` table (none: no table, GeoClue is off), e.g. `enabled = true`.
    var geoclueLines: [String] = []

    init(directory: TemporaryDirectory, replay: ReplayServer?, cities: [String] = []) {
        self.directory = directory
        self.baseURL = replay?.baseURL ?? "http://127.0.0.1:9"
        self.cities = cities
    }

    var configPath: String { directory.file("weatherd.toml") }
    var socketPath: String { directory.file("weatherd.sock") }
    var stateDirectory: String { directory.file("state") }

    var toml: String {
        var lines =
            ["cities = [\(cities.map { "\"\($0)\"" }.joined(separator: ", "))]"] + (refresh.map { ["refresh = \"\($0)\""] } ?? []) + [""]
        lines += ["[weather]"] + (providers.map { ["providers = [\($0.map { "\"\($0)\"" }.joined(separator: ", "))]"] } ?? [])
        lines += weatherLines + [""]
        lines += ["[openweathermap]", "base_url = \"\(baseURL)\""]
        if let apiKey { lines.append("api_key = \"\(apiKey)\"") }
        lines += openWeatherMapLines
        lines += [
            "", "[open-meteo]", "base_url = \"\(openMeteoURL ?? baseURL)\"", "geocoding_url = \"\(openMeteoGeocodingURL ?? baseURL)\"",
        ]
        lines += openMeteoLines
        lines += ["", "[air-quality]", "enabled = \(airQuality)", "base_url = \"\(openMeteoURL ?? baseURL)\""] + airQualityLines
        lines += ["", "[alerts]", "nws_url = \"\(baseURL)\"", "contact = \"weatherd-tests@example.invalid\""] + alertsLines
        lines += ["", "[socket]", "path = \"\(socketPath)\""]
        if let maxClients { lines.append("max_clients = \(maxClients)") }
        if let socketMode { lines.append("mode = \"\(socketMode)\"") }
        if !regionLines.isEmpty { lines += ["", "[region]"] + regionLines }
        lines += ["", "[state]", "directory = \"\(stateDirectory)\"", ""]
        lines += gpsd?.tomlLines ?? ["[gpsd]", "enabled = false"]
        if !webLines.isEmpty { lines += ["", "[web]"] + webLines }
        if !mqttLines.isEmpty { lines += ["", "[mqtt]"] + mqttLines }
        if !ownTracksLines.isEmpty { lines += ["", "[owntracks]"] + ownTracksLines }
        if !geoclueLines.isEmpty { lines += ["", "[geoclue]"] + geoclueLines }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    @discardableResult
    func writeConfig() throws -> String {
        try directory.write("weatherd.toml", toml)
    }
}

/// The `[gpsd]` table of a test configuration: where gpsd (e.g. a `GPSFake`) listens; the other
/// keys are written only when set, so the daemon's defaults apply otherwise.
struct GPSDSettings: Sendable {
    var enabled = true
    var host = "127.0.0.1"
    var port: Int
    var maxHorizontalError: Double?
    /// A duration, e.g. `"5s"`.
    var locateTimeout: String?
    var follow: Bool?
    var followDistance: Double?

    init(port: Int, enabled: Bool = true) {
        self.port = port
        self.enabled = enabled
    }

    var tomlLines: [String] {
        var lines = ["[gpsd]", "enabled = \(enabled)", "host = \"\(host)\"", "port = \(port)"]
        if let maxHorizontalError { lines.append("max_horizontal_error = \(maxHorizontalError)") }
        if let locateTimeout { lines.append("locate_timeout = \"\(locateTimeout)\"") }
        if let follow { lines.append("follow = \(follow)") }
        if let followDistance { lines.append("follow_distance = \(followDistance)") }
        return lines
    }
}

/// A running `weatherd`: started on a written configuration, awaited until its `listening on` line.
/// Its stderr is kept in memory. It is killed when the object goes away.
final class DaemonProcess: Sendable {
    let setup: DaemonSetup
    let process: ChildProcess

    var socketPath: String { setup.socketPath }
    var stderrText: String { process.stderrText }
    var pid: Int32 { process.pid }

    /// Writes the configuration and starts the daemon with `--config` (and `extraArguments`).
    static func start(
        _ setup: DaemonSetup, extraArguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> DaemonProcess {
        try setup.writeConfig()
        let process = try await ChildProcess(
            try TestEnvironment.binary("weatherd"), ["--config", setup.configPath] + extraArguments,
            environment: TestEnvironment.childEnvironment(environment))
        _ = try await process.waitForLine(containing: "listening on \(setup.socketPath)", on: \.stderr)
        return DaemonProcess(setup: setup, process: process)
    }

    private init(setup: DaemonSetup, process: ChildProcess) {
        self.setup = setup
        self.process = process
    }

    /// Writes the configuration and starts the daemon through another command: `launch` gets the
    /// weatherd path and its arguments (`--config` and `extraArguments`) and returns the command line
    /// to run (e.g. `systemd-socket-activate … weatherd …`, or `sh -c 'exec "$0" "$@"' weatherd …`:
    /// a wrapper that execs weatherd, so `pid` becomes the daemon's). Waits for a stderr line
    /// containing `awaiting` (nil: returns at once). The child runs in a process group of its own
    /// (Foundation's Process makes one); see `ChildProcess.killProcessGroup()`.
    static func start(
        _ setup: DaemonSetup, extraArguments: [String] = [], environment: [String: String] = [:],
        through launch: (_ weatherd: String, _ arguments: [String]) throws -> [String], awaiting: String?
    ) async throws -> DaemonProcess {
        try setup.writeConfig()
        let command = try launch(try TestEnvironment.binary("weatherd"), ["--config", setup.configPath] + extraArguments)
        guard let executable = command.first else { throw ChildProcessError(message: "an empty command line") }
        let process = try await ChildProcess(
            executable, Array(command.dropFirst()), environment: TestEnvironment.childEnvironment(environment), name: "weatherd")
        if let awaiting { _ = try await process.waitForLine(containing: awaiting, on: \.stderr) }
        return DaemonProcess(setup: setup, process: process)
    }

    /// SIGTERM; returns the exit status (a signal number + 128 when killed by one) and the time from
    /// the signal to the exit.
    func terminate(timeout: Duration = safetyDeadline) async throws -> (status: Int32, elapsed: Duration) {
        let sent = ContinuousClock.now
        process.send(SIGTERM)
        let (ended, at) = try await process.waitForExitTime(timeout: timeout)
        return (ended.exitedNormally ? ended.status : 128 + ended.status, at - sent)
    }

    /// SIGKILL, then waits for the process to be gone.
    func kill() async throws {
        process.send(SIGKILL)
        try await process.waitForExit()
    }

    /// Connects, runs `body`, closes.
    func withConnection<R: Sendable>(_ body: (DaemonConnection) async throws -> R) async throws -> R {
        try await DaemonConnection.with(socketPath: socketPath, body)
    }

    /// One request on a connection of its own.
    func call(_ method: String, _ params: JSONObject = [:]) async throws -> JSONValue {
        try await withConnection { try await $0.call(method, params) }
    }

    /// Runs weatherctl against this daemon (`--socket` first).
    func weatherctl(_ arguments: [String]) async throws -> CommandResult {
        try await runWeatherctl(["--socket", socketPath] + arguments)
    }
}

/// Runs weatherctl with `arguments` to completion.
func runWeatherctl(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
    try await runCommand(try TestEnvironment.binary("weatherctl"), arguments, environment: TestEnvironment.childEnvironment(environment))
}

/// Runs `weatherd` to completion (for `--check-config`).
func runWeatherd(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
    try await runCommand(try TestEnvironment.binary("weatherd"), arguments, environment: TestEnvironment.childEnvironment(environment))
}

/// The JSON-RPC error a call ended with (or a test failure when it succeeded).
func remoteError(_ body: () async throws -> JSONValue) async throws -> RemoteError {
    do {
        let result = try await body()
        throw ChildProcessError(message: "expected an error reply, got the result \(result.serialized)")
    } catch let error as RemoteError {
        return error
    }
}
