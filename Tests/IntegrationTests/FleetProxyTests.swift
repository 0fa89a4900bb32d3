import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A fleet on one account (docs/fleet.md): real daemons behind scripts/fleet-proxy.sh (Debian's nginx)
/// in front of owm-replay, which counts the requests that reach the provider and takes only the
/// account's key.
@Suite("fleet proxy")
struct FleetProxyTests {
    static let accountKey = "fleet-account-key-0123456789abcdef"

    /// The 0.01° cell of a point, in hundredths of a degree: what weatherd asks a provider for.
    struct Cell: Hashable, CustomStringConvertible {
        var lat: Int
        var lon: Int

        /// A point inside the cell, `offset` ten-thousandths of a degree from its centre (less than 50).
        func point(_ offset: (lat: Int, lon: Int)) -> Coordinate {
            Coordinate(lat: Double(lat * 100 + offset.lat) / 10000, lon: Double(lon * 100 + offset.lon) / 10000)
        }

        /// The cell of an owm-replay `/_stats` key (`lat=-20.11&lon=-25.3`), nil for another key.
        init?(statsKey key: String) {
            var values: [String: Double] = [:]
            for part in key.split(separator: "&") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, let value = Double(pair[1]) { values[String(pair[0])] = value }
            }
            guard let lat = values["lat"], let lon = values["lon"], values.count == 2 else { return nil }
            self.init(lat: Int((lat * 100).rounded()), lon: Int((lon * 100).rounded()))
        }

        init(lat: Int, lon: Int) {
            self.lat = lat
            self.lon = lon
        }

        var description: String { "(\(Double(lat) / 100), \(Double(lon) / 100))" }
    }

    /// Points of one cell that three devices stand at: each a different point.
    static let offsets = [(lat: 12, lon: -31), (lat: -24, lon: 18), (lat: 41, lon: 43)]

    /// Four cells in the South Atlantic (no known place within 25 km: every answer is a `pt:` feature),
    /// three of them next to each other.
    static let cells = [
        Cell(lat: -2011, lon: -2531), Cell(lat: -2011, lon: -2532), Cell(lat: -2012, lon: -2531), Cell(lat: -2150, lon: -2675),
    ]

    /// The weather requests owm-replay counted per cell (OpenWeatherMap's, or Open-Meteo's points).
    static func requestsPerCell(_ stats: ReplayStats, openMeteo: Bool = false) -> [Cell: Int] {
        let counts = (openMeteo ? stats.json["open_meteo"]?["by_query"] : stats.json["by_query"])?.objectValue?.members ?? []
        var cells: [Cell: Int] = [:]
        for (key, count) in counts {
            if let cell = Cell(statsKey: key) { cells[cell, default: 0] += count.intValue ?? 0 }
        }
        return cells
    }

    static func placeParams(_ point: Coordinate, name: String) -> JSONObject {
        ["place": .object(["name": .string(name), "lat": .double(point.lat), "lon": .double(point.lon)])]
    }

    /// `search` of the place at `point` on each daemon at once (`points[i]` on `daemons[i]`).
    static func searchAll(_ daemons: [DaemonProcess], _ params: [JSONObject]) async throws -> [Result<JSONValue, RemoteError>] {
        try await withThrowingTaskGroup(of: (Int, Result<JSONValue, RemoteError>).self) { group in
            for (index, daemon) in daemons.enumerated() {
                let socket = daemon.socketPath
                let param = params[index]
                group.addTask {
                    do {
                        return (index, .success(try await DaemonConnection.with(socketPath: socket) { try await $0.call("search", param) }))
                    } catch let error as RemoteError {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<JSONValue, RemoteError>?](repeating: nil, count: daemons.count)
            for try await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    /// The feature id and position a daemon gives the place at `point`: its own, not its cell's.
    static func expectOwnPoint(_ feature: JSONValue, _ point: Coordinate, _ comment: Comment) {
        #expect(feature["id"]?.stringValue == String(format: "pt:%.4f,%.4f", point.lat, point.lon), comment)
        #expect(feature["geometry"]?["coordinates"]?.position == [point.lon, point.lat], comment)
    }

    @Test(
        "12 daemons with a placeholder key behind fleet-proxy.sh: the provider gets one request per 2-decimal cell and only the account's key, the budget holds under a burst (429s become rate_limited and fail over), a cached place is answered while the provider fails"
    )
    func fleet() async throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("owm-api-key", Self.accountKey + "\n")
        let replay = try await ReplayServer.start(["--api-key", Self.accountKey])
        // OpenWeatherMap's budget: 8 at once, then 1 a minute. The first round below spends 6.
        let budget = (perMinute: 1, burst: 8)
        let started = ContinuousClock.now
        let proxy = try await FleetProxy.start(
            directory: directory.file("proxy"),
            [
                "--openweathermap", replay.baseURL, "--key-file", keyFile, "--requests-per-minute", String(budget.perMinute),
                "--burst", String(budget.burst), "--open-meteo", replay.baseURL, "--open-meteo-geocoding", replay.baseURL,
                "--open-meteo-requests-per-minute", "600",
            ])

        // Devices 0-5 ask OpenWeatherMap alone, 6-11 fail over to Open-Meteo; all through the proxy,
        // with a placeholder key.
        let daemons = try await withThrowingTaskGroup(of: (Int, DaemonProcess).self) { group in
            for index in 0..<12 {
                let deviceDirectory = try TemporaryDirectory()
                var setup = DaemonSetup(directory: deviceDirectory, replay: nil)
                setup.providers = (index < 6 ? [Provider.openWeatherMap] : [.openWeatherMap, .openMeteo]).map(\.rawValue)
                setup.baseURL = proxy.url("openweathermap")
                setup.openMeteoURL = proxy.url("open-meteo")
                setup.openMeteoGeocodingURL = proxy.url("open-meteo-geocoding")
                setup.apiKey = "fleet"
                group.addTask { (index, try await DaemonProcess.start(setup)) }
            }
            return try await group.reduce(into: [Int: DaemonProcess]()) { $0[$1.0] = $1.1 }.sorted { $0.key < $1.key }.map(\.value)
        }

        // 1. Nearby and distinct places at once: three devices at different points of each of four
        // cells, then every device the same city. The provider sees each cell once.
        let points = (0..<12).map { Self.cells[$0 / 3].point(Self.offsets[$0 % 3]) }
        let first = try await Self.searchAll(daemons, points.enumerated().map { Self.placeParams($1, name: "device \($0)") })
        for (index, result) in first.enumerated() {
            let feature = try result.get()
            #expect(feature.provider == "openweathermap", "device \(index)")
            Self.expectOwnPoint(feature, points[index], "device \(index)")
        }
        let zocca = try await Self.searchAll(daemons, Array(repeating: ["city": "Zocca"], count: 12))
        #expect(Set(try zocca.map { try $0.get()["id"]?.stringValue }).count == 1, "one place, one feature id: \(zocca)")
        var stats = try await replay.stats()
        #expect(stats.placeRequests(for: "zocca") == 1, "\(stats)")
        #expect(stats.weatherRequests == Self.cells.count + 1, "one request per cell and one for Zocca: \(stats)")
        let perCell = Self.requestsPerCell(stats)
        for cell in Self.cells { #expect(perCell[cell] == 1, "\(cell): \(stats)") }
        let asked = proxy.accessLog.filter { $0.contains("\"GET /openweathermap/data/2.5/weather?") }
        #expect(asked.count == 24, "each device's two searches reached the proxy: \(proxy.accessLog)")

        // 2. The provider fails; a device that never asked for a cell the proxy has gets its weather
        // from the proxy's cache, at its own point, and the provider is not asked.
        try await replay.setFault(city: "*", "500")
        let before = try await replay.stats()
        let elsewhere = [(device: 0, point: Self.cells[3].point((0, 0))), (device: 9, point: Self.cells[0].point((-5, 7)))]
        for (device, point) in elsewhere {
            let feature = try await daemons[device].call("search", Self.placeParams(point, name: "elsewhere"))
            #expect(feature.provider == "openweathermap")
            Self.expectOwnPoint(feature, point, "device \(device)")
        }
        #expect(try await replay.stats().requests == before.requests, "answered from the proxy's cache")
        #expect(proxy.accessLog.suffix(2).allSatisfy { $0.hasSuffix("cache=HIT") }, "\(proxy.accessLog.suffix(2))")
        try await replay.clearFaults()

        // 3. A burst: every device a new cell at once. The budget lets what is left of it through
        // (2, and 1 a minute since the start); the others get the proxy's 429: OpenWeatherMap-only
        // devices answer rate_limited with its Retry-After, the others fail over to Open-Meteo.
        let burstCells = (0..<12).map { Cell(lat: -3000 - 5 * $0, lon: -2000) }
        let burst = try await Self.searchAll(
            daemons, burstCells.enumerated().map { Self.placeParams($1.point((3, -3)), name: "burst \($0)") })
        stats = try await replay.stats()
        let elapsedMinutes = started.duration(to: .now) / .seconds(60)
        var passed = 0
        var refused: [Int] = []
        var failedOver = 0
        for (index, result) in burst.enumerated() {
            switch result {
            case .success(let feature) where feature.provider == "openweathermap":
                passed += 1
            case .success(let feature):
                #expect(index >= 6 && feature.provider == "open-meteo", "device \(index): \(feature)")
                failedOver += 1
            case .failure(let error):
                #expect(index < 6, "device \(index) has Open-Meteo to fail over to: \(error)")
                #expect(error.code == -32003 && error.name == "rate_limited", "device \(index): \(error.json)")
                #expect(error.json["data"]?["retry_after"]?.intValue == 60, "⌈60/N⌉ from the proxy: \(error.json)")
                #expect(error.json["data"]?["provider"] == "openweathermap")
                refused.append(index)
            }
        }
        let burstRequests = Self.requestsPerCell(stats).filter { burstCells.contains($0.key) }
        #expect(burstRequests.values.reduce(0, +) == passed, "each request the budget let through answered a device: \(stats)")
        #expect(
            stats.requests <= budget.burst + Int((elapsedMinutes * Double(budget.perMinute)).rounded(.up)),
            "the budget held: \(stats.requests) requests in \(elapsedMinutes) minutes")
        #expect(passed < 12 && refused.count + failedOver == 12 - passed, "passed \(passed), refused \(refused), failed over \(failedOver)")
        #expect(
            Self.requestsPerCell(stats, openMeteo: true).filter { burstCells.contains($0.key) }.values.reduce(0, +) == failedOver,
            "each device that failed over asked Open-Meteo once, through the proxy: \(stats)")

        // A device that got the 429 waits its Retry-After: its next lookup of the provider is refused
        // at once, without a request to the proxy.
        if let waiting = refused.first {
            let logged = proxy.accessLog.count
            let error = try await remoteError {
                try await daemons[waiting].call("search", Self.placeParams(Cell(lat: -4000, lon: -2000).point((0, 0)), name: "later"))
            }
            #expect(error.name == "rate_limited" && (1...60).contains(error.json["data"]?["retry_after"]?.intValue ?? 0), "\(error.json)")
            #expect(proxy.accessLog.count == logged, "no request while it waits")
        }

        // The provider only ever saw the account's key; the key is in no log.
        #expect(try await replay.stats().wrongKey == 0)
        for log in ["access.log", "upstream.log", "error.log"] {
            #expect(!proxy.file(log).contains(Self.accountKey), "\(log)")
        }
        for daemon in daemons { #expect(!daemon.stderrText.contains(Self.accountKey)) }
        #expect(try await proxy.stop().status == 0)
    }

    @Test(
        "fleet-proxy.sh: stale answers while the provider fails or the budget is spent, 429s in each provider's shape and never cached, the key put in, SIGTERM stops nginx and removes the key's copy"
    )
    func script() async throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("owm-api-key", "k\n")
        let replay = try await ReplayServer.start(["--api-key", "k"])
        let proxy = try await FleetProxy.start(
            directory: directory.file("proxy"),
            [
                "--cache-ttl", "1s", "--openweathermap", replay.baseURL, "--key-file", keyFile, "--requests-per-minute", "1", "--burst",
                "2",
                "--open-meteo", replay.baseURL, "--open-meteo-requests-per-minute", "1",
            ])
        #expect(FileManager.default.fileExists(atPath: proxy.directory + "/keys/openweathermap.conf"))
        let nginxPID = try #require(Int32(proxy.file("nginx.pid").trimmingCharacters(in: .whitespacesAndNewlines)))

        // OpenWeatherMap: the device's placeholder is replaced (owm-replay takes only "k").
        let weather = "/openweathermap/data/2.5/weather?lat=-20.11&lon=-25.31&units=metric&lang=en&appid=placeholder"
        let primed = try await proxy.get(weather)
        #expect(primed.status == 200 && primed.headers["x-cache-status"] == "MISS", "\(primed)")
        // The provider fails: once the answer is older than --cache-ttl, it is served stale (HIT before).
        try await replay.setFault(.openWeatherMap, "500")
        let stale = try await Self.pollUntilStale(proxy, weather)
        #expect(stale.status == 200 && stale.text == primed.text)
        #expect(proxy.file("upstream.log").contains("upstream=500"), "\(proxy.file("upstream.log"))")
        try await replay.clearFaults()

        // Two requests spent OpenWeatherMap's budget (2 at once): a new cell gets the proxy's 429 in
        // OpenWeatherMap's shape, and again (a 429 is never cached).
        for _ in 0..<2 {
            let spent = try await proxy.get("/openweathermap/data/2.5/weather?lat=-20.12&lon=-25.31&units=metric&lang=en&appid=placeholder")
            #expect(spent.status == 429 && spent.headers["retry-after"] == "60" && spent.headers["x-cache-status"] == "MISS", "\(spent)")
            let body = try JSONValue.parse(spent.body)
            #expect(body["cod"]?.intValue == 429 && body["message"]?.stringValue?.isEmpty == false, "\(spent.text)")
        }

        // Open-Meteo: 1 a minute. A new point gets a 429 in Open-Meteo's shape; the primed one, once
        // expired, is served stale while the budget is spent.
        let forecast = "/open-meteo/v1/forecast?latitude=-20.11&longitude=-25.31&current=temperature_2m"
        let meteo = try await proxy.get(forecast)
        #expect(meteo.status == 200 && meteo.headers["x-cache-status"] == "MISS", "\(meteo)")
        let spent = try await proxy.get("/open-meteo/v1/forecast?latitude=-20.12&longitude=-25.31&current=temperature_2m")
        #expect(spent.status == 429 && spent.headers["retry-after"] == "60", "\(spent)")
        let reason = try JSONValue.parse(spent.body)
        #expect(reason["error"] == .bool(true) && reason["reason"]?.stringValue?.isEmpty == false, "\(spent.text)")
        #expect(try await Self.pollUntilStale(proxy, forecast).text == meteo.text)

        let stats = try await replay.stats()
        #expect(stats.wrongKey == 0 && stats.weatherRequests == 2, "the primed request and one refresh that failed: \(stats)")
        #expect(stats.openMeteoForecastRequests == 1, "\(stats)")

        // SIGTERM: nginx (master and workers) is gone, the port is free, the key's copy removed.
        #expect(try await proxy.stop().status == 0)
        #expect(kill(nginxPID, 0) == -1 && errno == ESRCH, "nginx \(nginxPID) is gone")
        await #expect(throws: (any Error).self) { _ = try await proxy.get("/") }
        #expect(!FileManager.default.fileExists(atPath: proxy.directory + "/keys/openweathermap.conf"))
        #expect(!proxy.file("nginx.conf").contains("\"k\""), "the key is not in the configuration")
    }

    /// GETs `target` until the proxy serves it stale (once it is older than --cache-ttl); every answer
    /// before is the cached one (HIT).
    static func pollUntilStale(_ proxy: FleetProxy, _ target: String, timeout: Duration = .seconds(20)) async throws -> HTTPAnswer {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let answer = try await proxy.get(target)
            if answer.headers["x-cache-status"] == "STALE" { return answer }
            #expect(answer.status == 200 && answer.headers["x-cache-status"] == "HIT", "\(answer)")
            guard ContinuousClock.now < deadline else { throw TimeoutError(what: "a stale answer for \(target)", timeout: timeout) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("packaging/nginx/weatherd-fleet.conf is what fleet-proxy.sh --site-config writes for the example it names")
    func siteConfig() async throws {
        let shipped = try String(contentsOfFile: TestEnvironment.packageRoot + "/packaging/nginx/weatherd-fleet.conf", encoding: .utf8)
        let example = try #require(shipped.split(separator: "\n").first { $0.hasPrefix("#   --listen") })
        let arguments = ["--site-config"] + example.dropFirst(4).split(separator: " ").map(String.init)
        let result = try await runCommand(FleetProxy.script, arguments, environment: TestEnvironment.childEnvironment())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == shipped,
            "make it again: scripts/fleet-proxy.sh \(arguments.joined(separator: " ")) >packaging/nginx/weatherd-fleet.conf")

        let missingKey = try await runCommand(
            FleetProxy.script,
            ["--listen", "127.0.0.1:1", "--dir", "/nonexistent", "--openweathermap", "http://127.0.0.1:9", "--requests-per-minute", "1"],
            environment: TestEnvironment.childEnvironment())
        #expect(missingKey.status == 2 && missingKey.stderr.contains("--key-file"), "\(missingKey.stderr)")
    }
}

extension HTTPAnswer: CustomStringConvertible {
    var description: String { "HTTP \(status) \(headers) \(text)" }
}
