import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The weather series of `/metrics`, by series name and then feature id (the `id` label).
private func weatherSeries(_ exposition: String) -> [String: [String: Double]] {
    var series: [String: [String: Double]] = [:]
    for line in exposition.split(separator: "\n") where line.hasPrefix("weatherd_weather_") {
        guard let brace = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"),
            let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)),
            let id = label("id", in: String(line[brace...close]))
        else { continue }
        series[String(line[..<brace]), default: [:]][id] = value
    }
    return series
}

/// The value of `name` in a label set `{a="…",b="…"}` (no escaped quotes in these tests).
private func label(_ name: String, in labels: String) -> String? {
    guard let start = labels.range(of: "\(name)=\"") else { return nil }
    let rest = labels[start.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
}

/// The series a feature (in metric units) must give, in base units, by series name.
private func expectedSeries(_ feature: JSONValue) -> [String: Double] {
    let properties = feature["properties"]
    func value(_ key: String) -> Double? { properties?[key]?.doubleValue }
    var expected: [String: Double?] = [
        "weatherd_weather_temperature_celsius": value("temperature"),
        "weatherd_weather_feels_like_celsius": value("feels_like"),
        "weatherd_weather_relative_humidity_ratio": value("humidity").map { $0 / 100 },
        "weatherd_weather_pressure_pascals": value("pressure").map { $0 * 100 },
        "weatherd_weather_wind_speed_meters_per_second": value("wind_speed"),
        "weatherd_weather_cloudiness_ratio": value("clouds").map { $0 / 100 },
    ]
    expected["weatherd_weather_observed_timestamp_seconds"] =
        properties?["observed_at"]?.stringValue.flatMap(Timestamp.parse).map(\.timeIntervalSince1970)
    return expected.compactMapValues { $0 }
}

/// A daemon watching `cities` with its web listener on a free loopback port; returns once the
/// overlays hold the features of `ids`.
private struct MetricsDaemon {
    let replay: ReplayServer
    let directory: TemporaryDirectory
    var setup: DaemonSetup
    let daemon: DaemonProcess
    let port: Int
    let watcher: Watcher

    init(cities: [String], ids: Set<String>, weatherLines: [String] = [], refresh: String? = nil, airQuality: Bool = false) async throws {
        replay = try await ReplayServer.start()
        directory = try TemporaryDirectory()
        setup = DaemonSetup(directory: directory, replay: replay, cities: cities)
        setup.airQuality = airQuality
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        setup.weatherLines = weatherLines
        setup.refresh = refresh
        daemon = try await DaemonProcess.start(setup)
        port = try await daemon.webPort()
        watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await waitForOverlays(ids)
    }

    /// Waits for the overlays to hold exactly the features of `ids`; returns them.
    @discardableResult
    func waitForOverlays(_ ids: Set<String>) async throws -> [JSONValue] {
        let (overlays, _) = try await watcher.next("the overlays with \(ids.sorted())", timeout: .seconds(20)) {
            $0.isOverlaysNotification && Set($0.params?.featureIDs ?? []) == ids
        }
        return overlays.params?["features"]?.arrayValue ?? []
    }

    func metrics() async throws -> String {
        let answer = try await httpRequest(port: port, "/metrics")
        #expect(answer.status == 200)
        return answer.text
    }
}

@Suite("Prometheus: the weather series of /metrics")
struct PrometheusMetricsTests {
    static let london = "owm:2643743"
    static let paris = "owm:2988507"
    static let tokyo = "owm:1850147"

    @Test("each watched city's series equal its feature's, in base units, with its labels; promtool check metrics finds no problem")
    func seriesAndPromtool() async throws {
        let fixture = try await MetricsDaemon(cities: ["London", "Paris"], ids: [Self.london, Self.paris])
        let features = try await fixture.daemon.call("overlays")["features"]?.arrayValue ?? []
        let text = try await fixture.metrics()
        let series = weatherSeries(text)
        #expect(features.count == 2)
        for feature in features {
            let id = try #require(feature["id"]?.stringValue)
            let expected = expectedSeries(feature)
            #expect(expected.count == 7, "\(feature.serialized)")
            for (name, value) in expected { #expect(series[name]?[id] == value, "\(name) of \(id)") }
        }
        #expect(series.count == 7)
        let londonLabels = #"{city="London",id="owm:2643743",country="GB",provider="openweathermap"}"#
        #expect(text.contains("weatherd_weather_temperature_celsius" + londonLabels), "\(text)")
        #expect(text.contains("# HELP weatherd_weather_pressure_pascals Atmospheric pressure at a watched city, in pascals"))
        #expect(text.contains("# TYPE weatherd_weather_observed_timestamp_seconds gauge"))

        // promtool lints the exposition as Prometheus would read it.
        let file = try fixture.directory.write("metrics.txt", text)
        let check = try await runCommand(
            "/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < \"$0\"", file], environment: TestEnvironment.childEnvironment())
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check)\n\(text)")
        _ = try await fixture.daemon.expectPromptShutdown()
    }

    @Test("a city removed, or left out of a reloaded configuration, drops its series")
    func removedCitiesDropSeries() async throws {
        let fixture = try await MetricsDaemon(cities: ["London", "Paris"], ids: [Self.london, Self.paris])
        #expect(weatherSeries(try await fixture.metrics()).values.allSatisfy { Set($0.keys) == [Self.london, Self.paris] })
        _ = try await fixture.daemon.call("cities.remove", ["city": "Paris"])
        let afterRemoval = weatherSeries(try await fixture.metrics())
        #expect(afterRemoval.count == 7 && afterRemoval.values.allSatisfy { Set($0.keys) == [Self.london] }, "\(afterRemoval)")

        var reloaded = fixture.setup
        reloaded.cities = ["Tokyo"]
        try reloaded.writeConfig()
        fixture.daemon.process.send(SIGHUP)
        try await fixture.waitForOverlays([Self.tokyo])
        let afterReload = weatherSeries(try await fixture.metrics())
        #expect(afterReload.count == 7 && afterReload.values.allSatisfy { Set($0.keys) == [Self.tokyo] }, "\(afterReload)")
        _ = try await fixture.daemon.expectPromptShutdown()
    }

    @Test("a failed refresh keeps the city's series at their last values, not zeroed (the feature is stale)")
    func staleKeepsValues() async throws {
        let fixture = try await MetricsDaemon(
            cities: ["London"], ids: [Self.london], weatherLines: [#"cache_ttl = "0s""#], refresh: "1s")
        let before = weatherSeries(try await fixture.metrics())
        #expect(before.count == 7)
        try await fixture.replay.setFault(city: "London", "503")
        try await fixture.watcher.next("London's feature turned stale", timeout: .seconds(20)) {
            $0.isOverlaysNotification && $0.params?["features"]?.arrayValue?.first?["properties"]?["stale"] == .bool(true)
        }
        #expect(weatherSeries(try await fixture.metrics()) == before)
        try await fixture.replay.clearFaults()
        _ = try await fixture.daemon.expectPromptShutdown()
    }

    @Test(
        "a watched city's air quality index, one series per scale, labelled with the data's provider; promtool check metrics finds no problem"
    )
    func airQualityIndex() async throws {
        let fixture = try await MetricsDaemon(cities: ["London"], ids: [Self.london], airQuality: true)
        let feature = try #require(try await fixture.daemon.call("overlays")["features"]?.arrayValue?.first)
        let air = try #require(feature["properties"]?["air_quality"])
        let text = try await fixture.metrics()
        for (scale, member) in [("european", "european_aqi"), ("us", "us_aqi")] {
            let labels = #"{city="London",id="owm:2643743",country="GB",provider="open-meteo",scale="\#(scale)"}"#
            let value = try #require(air[member]?.doubleValue, "\(air.serialized)")
            #expect(text.contains("\nweatherd_weather_air_quality_index\(labels) \(value)\n"), "\(scale): \(text)")
        }
        #expect(text.contains("# TYPE weatherd_weather_air_quality_index gauge"))
        let file = try fixture.directory.write("metrics.txt", text)
        let check = try await runCommand(
            "/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < \"$0\"", file], environment: TestEnvironment.childEnvironment())
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check)\n\(text)")
        _ = try await fixture.daemon.expectPromptShutdown()
    }

    @Test("weather.units = imperial: the series are in Celsius and meters per second all the same")
    func imperialUnits() async throws {
        let fixture = try await MetricsDaemon(cities: ["London"], ids: [Self.london], weatherLines: [#"units = "imperial""#])
        let feature = try #require(try await fixture.daemon.call("overlays")["features"]?.arrayValue?.first)
        let properties = try #require(feature["properties"])
        #expect(properties["units"] == "imperial")
        let series = weatherSeries(try await fixture.metrics())
        let fahrenheit = try #require(properties["temperature"]?.doubleValue)
        let mph = try #require(properties["wind_speed"]?.doubleValue)
        let celsius = try #require(series["weatherd_weather_temperature_celsius"]?[Self.london])
        let speed = try #require(series["weatherd_weather_wind_speed_meters_per_second"]?[Self.london])
        #expect(abs(celsius - (fahrenheit - 32) * 5 / 9) < 1e-9)
        #expect(abs(speed - mph * 0.44704) < 1e-9)
        _ = try await fixture.daemon.expectPromptShutdown()
    }
}

/// The queries of the `promql` block of docs/prometheus.md: each one follows its comment line.
private func exampleQueries() throws -> [String] {
    let text = try String(contentsOfFile: TestEnvironment.packageRoot + "/docs/prometheus.md", encoding: .utf8)
    guard let start = text.range(of: "```promql\n"), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
        return []
    }
    var queries: [String] = []
    for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
        if line.hasPrefix("#") {
            queries.append("")
        } else if !queries.isEmpty {
            queries[queries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
        }
    }
    return queries.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// The alert rules shipped in the repository.
private let alertRules = TestEnvironment.packageRoot + "/docs/prometheus-rules.yml"

/// A real Prometheus (Debian's `prometheus`) with a config and data directory of its own, on a free
/// loopback port, scraping `targets` and evaluating the shipped alert rules every second.
private final class PrometheusServer: Sendable {
    let port: Int
    let process: ChildProcess

    init(in directory: TemporaryDirectory, targets: [String]) async throws {
        port = try freeTCPPort()
        let config = try directory.write(
            "prometheus.yml",
            """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files: ["\(alertRules)"]
            scrape_configs:
              - job_name: weatherd
                static_configs:
                  - targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))]

            """)
        let data = directory.file("prometheus-data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        process = try await ChildProcess(
            "/usr/bin/prometheus",
            [
                "--config.file=\(config)", "--storage.tsdb.path=\(data)", "--web.listen-address=127.0.0.1:\(port)",
                "--log.level=warn",
            ],
            // One thread for Go's scheduler: the other tests run beside it on a small machine.
            environment: TestEnvironment.childEnvironment(["GOMAXPROCS": "1"]), name: "prometheus:\(port)")
    }

    deinit {
        if process.isRunning { process.send(SIGKILL) }
    }

    func stop() async throws {
        process.send(SIGTERM)
        _ = try await process.waitForExit(timeout: .seconds(20))
    }

    /// The result of an instant query (`data.result`), or nil while Prometheus does not answer yet.
    func query(_ promQL: String) async throws -> [JSONValue]? {
        let encoded = promQL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promQL
        guard let body = try? await get("/api/v1/query?query=\(encoded)") else { return nil }
        return try JSONValue.parse(body)["data"]?["result"]?.arrayValue
    }

    /// The body of a GET of `target`, or nil when the answer is no 200. HTTP/1.0, so the answer is
    /// not chunked: its body ends where the connection does.
    private func get(_ target: String) async throws -> [UInt8]? {
        let socket = try RawSocket(tcpPort: port)
        try socket.send(bytes: Array("GET \(target) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        let head = try await socket.readHTTPHead()
        let body = try await socket.read(what: "the answer of \(target)") { buffer, atEnd in atEnd ? (buffer, buffer.count) : nil }
        return head.status == 200 ? body : nil
    }

    /// Polls `promQL` until `check` accepts its result, or fails at the deadline.
    func await<R>(_ promQL: String, timeout: Duration = .seconds(60), _ check: ([JSONValue]) -> R?) async throws -> R {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var last: [JSONValue]?
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw ChildProcessError(message: "prometheus ended: \(process.stderrText)") }
            last = try await query(promQL)
            if let last, let result = check(last) { return result }
            try await Task.sleep(for: .milliseconds(250))  // the next poll of the HTTP API
        }
        throw ChildProcessError(
            message: "Prometheus did not answer \(promQL) as expected within \(timeout); last: \(last.map(describe) ?? "no answer")")
    }
}

@Suite("Prometheus: the shipped alert rules")
struct PrometheusRulesTests {
    @Test("promtool check rules accepts docs/prometheus-rules.yml; promtool test rules: each alert fires when it should, and not before")
    func promtool() async throws {
        let check = try await runCommand(
            "/usr/bin/promtool", ["check", "rules", alertRules], environment: TestEnvironment.childEnvironment())
        #expect(check.status == 0 && check.stdout.contains("SUCCESS: 5 rules found"), "\(check)")
        let test = try await runCommand(
            "/usr/bin/promtool", ["test", "rules", TestEnvironment.packageRoot + "/Tests/Fixtures/prometheus-rules-test.yml"],
            environment: TestEnvironment.childEnvironment())
        #expect(test.status == 0 && test.stdout.contains("SUCCESS"), "\(test)")
    }

    @Test("docs/prometheus.md's failed share, evaluated by promtool: the share where some failed, 0 where none failed or none was asked")
    func failedShare() async throws {
        let query = try #require(try exampleQueries().first { $0.contains("unauthorized") })
        let directory = try TemporaryDirectory()
        // Over 15 minutes: OpenWeatherMap half failed, Open-Meteo only answered, the third was not asked.
        let series = [
            ("openweathermap", "ok", "0+2x20"), ("openweathermap", "unavailable", "0+1x20"),
            ("openweathermap", "rate_limited", "0+1x20"), ("openweathermap", "not_found", "0+0x20"),
            ("open-meteo", "ok", "0+6x20"), ("idle", "ok", "7x20"), ("idle", "unavailable", "3x20"),
        ]
        let input = series.map { provider, outcome, values in
            "      - series: 'weatherd_upstream_requests_total{endpoint=\"weather\",outcome=\"\(outcome)\",provider=\"\(provider)\"}'\n"
                + "        values: \"\(values)\"\n"
        }
        let expected = [("openweathermap", "0.5"), ("open-meteo", "0"), ("idle", "0")].map { provider, value in
            "          - labels: '{provider=\"\(provider)\"}'\n            value: \(value)\n"
        }
        let file = try directory.write(
            "failed-share-test.yml",
            """
            rule_files: []
            evaluation_interval: 1m
            tests:
              - interval: 1m
                input_series:
            \(input.joined())    promql_expr_test:
                  - expr: '\(query.replacingOccurrences(of: "'", with: "''"))'
                    eval_time: 15m
                    exp_samples:
            \(expected.joined())
            """)
        let test = try await runCommand("/usr/bin/promtool", ["test", "rules", file], environment: TestEnvironment.childEnvironment())
        #expect(test.status == 0 && test.stdout.contains("SUCCESS"), "\(test)\n\(query)")
    }
}

@Suite("Prometheus: a real Prometheus scrapes the weather series", .serialized)
struct PrometheusScrapeTests {
    @Test("a real Prometheus scrapes weatherd; its HTTP API gives the weather series, values equal to the features'")
    func scrapedByPrometheus() async throws {
        let fixture = try await MetricsDaemon(
            cities: ["London", "Paris"], ids: [PrometheusMetricsTests.london, PrometheusMetricsTests.paris])
        let features = try await fixture.daemon.call("overlays")["features"]?.arrayValue ?? []
        let prometheus = try await PrometheusServer(in: fixture.directory, targets: ["127.0.0.1:\(fixture.port)"])
        // Every weather series of both cities, as Prometheus stored them.
        let samples = try await prometheus.await(#"{__name__=~"weatherd_weather_.+"}"#) { result -> [JSONValue]? in
            result.count == 14 ? result : nil
        }
        var scraped: [String: [String: Double]] = [:]
        for sample in samples {
            let metric = sample["metric"]
            guard let name = metric?["__name__"]?.stringValue, let id = metric?["id"]?.stringValue,
                let value = sample["value"]?.arrayValue?.last?.stringValue.flatMap(Double.init)
            else { continue }
            #expect(metric?["job"] == "weatherd" && metric?["provider"] == "openweathermap")
            #expect(metric?["city"]?.stringValue?.isEmpty == false && metric?["country"]?.stringValue?.count == 2)
            scraped[name, default: [:]][id] = value
        }
        for feature in features {
            let id = try #require(feature["id"]?.stringValue)
            for (name, value) in expectedSeries(feature) { #expect(scraped[name]?[id] == value, "\(name) of \(id)") }
        }
        // The target is up.
        _ = try await prometheus.await(#"up{job="weatherd"}"#) { $0.first?["value"]?.arrayValue?.last == "1" ? true : nil }
        // The shipped rules run on these series: the recorded observations are years old, so each
        // city's "observation older than 1 h" alert is pending (its `for` is 5 minutes); nothing else.
        let alerts = try await prometheus.await("ALERTS") { result -> [JSONValue]? in result.count == 2 ? result : nil }
        #expect(alerts.allSatisfy { $0["metric"]?["alertname"] == "WeatherdObservationOld" && $0["metric"]?["alertstate"] == "pending" })
        #expect(Set(alerts.compactMap { $0["metric"]?["city"]?.stringValue }) == ["London", "Paris"])
        // The example queries of docs/prometheus.md are PromQL Prometheus accepts; the first two find
        // both cities.
        let examples = try exampleQueries()
        #expect(examples.count == 3)
        for (index, example) in examples.enumerated() {
            let result = try await prometheus.query(example)
            #expect(result != nil, "\(example)")
            if index < 2 { #expect(result?.count == 2, "\(example): \(result.map(describe) ?? "")") }
        }
        try await prometheus.stop()
        _ = try await fixture.daemon.expectPromptShutdown()
    }
}

extension PrometheusMetricsTests {
    @Test(
        "weatherd_weather_alerts: a watched city's alerts in force per severity, labelled with the NWS; promtool check metrics finds no problem"
    )
    func alertSeries() async throws {
        let replay = try await ReplayServer.start()
        let (status, body) = try await httpRequest("POST", port: replay.port, target: "/_nws?ends_in=3600")
        #expect(status == 200, "\(body)")
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["Norman,US"])
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        let daemon = try await DaemonProcess.start(setup)
        let port = try await daemon.webPort()
        // Asked by the alert service after the city's round: awaited, scrape after scrape (the suite's
        // time limit ends a hang).
        var text = ""
        while !text.contains(#"provider="nws",severity="severe"} 1"#) {
            text = try await httpRequest(port: port, "/metrics").text
            if !text.contains(#"provider="nws",severity="severe"} 1"#) { try await Task.sleep(for: .milliseconds(100)) }
        }
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("weatherd_weather_alerts{") }
        #expect(lines.count == 5, "\(text)")
        for (severity, count) in [("extreme", "0"), ("severe", "1"), ("moderate", "0"), ("minor", "0"), ("unknown", "0")] {
            #expect(
                lines.contains {
                    $0.hasPrefix(#"weatherd_weather_alerts{city="Norman","#)
                        && $0.contains(#",country="US",provider="nws",severity="\#(severity)"} \#(count)"#)
                }, "\(severity)")
        }
        #expect(text.contains("# HELP weatherd_weather_alerts Official alerts in force at a watched city, by severity (CAP)"))
        let file = try directory.write("metrics.txt", text)
        let check = try await runCommand(
            "/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < \"$0\"", file], environment: TestEnvironment.childEnvironment())
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check)\n\(text)")
    }
}
