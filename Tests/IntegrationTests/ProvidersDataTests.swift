import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// What each provider's answers look like through the daemon: forecast steps, units, and the
/// request metrics by provider.
@Suite("providers: forecasts, units, metrics", .processTimeLimit)
struct ProvidersDataTests {
    @Test(
        "forecast: Open-Meteo's hourly steps (forecast_step 3600, hours 24 is 24 steps), OpenWeatherMap's 3-hour ones (10800)",
        arguments: Provider.allCases)
    func forecastSteps(_ first: Provider) async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [first, first.other]))
        let before = Date()
        let feature = try await daemon.call("forecast", ["lat": .double(10.5), "lon": .double(20.25), "hours": .integer(24)])
        let after = Date()
        #expect(feature.provider == first.rawValue, "\(feature.serialized)")
        let step: TimeInterval = first == .openMeteo ? 3600 : 10800
        #expect(feature["properties"]?["forecast_step"] == .integer(Int64(step)), "\(feature.serialized)")
        let steps = try #require(feature["properties"]?["forecast"]?.arrayValue)
        #expect(steps.count == Int(24 * 3600 / step), "\(feature.serialized)")
        let times = steps.map { rfc3339UTC($0["at"]?.stringValue) }
        #expect(times.allSatisfy { $0 != nil }, "every `at` RFC 3339 UTC: \(steps.map { $0["at"] ?? .null })")
        let dates = times.compactMap { $0 }
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == step }, "\(dates)")
        #expect(steps.allSatisfy { $0["temperature"]?.doubleValue != nil }, "\(feature.serialized)")
        switch first {
        case .openMeteo:
            // From the hour in progress.
            if let start = dates.first {
                #expect(start <= after && start > before.addingTimeInterval(-3600), "first step \(start), asked at \(before)")
            }
            let pops = steps.map { $0["pop"]?.doubleValue }
            #expect(pops.allSatisfy { $0.map { (0...1).contains($0) } == true }, "pop from 0 to 1: \(pops)")
            #expect(steps.allSatisfy { $0["temp_min"] == .null && $0["temp_max"] == .null })
            #expect(try await replay.stats().openMeteoForecastRequests == 1)
        case .openWeatherMap:
            #expect(try await replay.stats().forecastRequests == 1)
        }
    }

    @Test("units from Open-Meteo: imperial is metric × 9/5 + 32 and m/s × 2.23694, standard is metric + 273.15")
    func units() async throws {
        let replay = try await ReplayServer.start()
        var features: [String: JSONValue] = [:]
        for units in ["metric", "imperial", "standard"] {
            var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openMeteo, .openWeatherMap])
            setup.weatherLines = ["units = \"\(units)\""]
            let daemon = try await DaemonProcess.start(setup)
            // Berlin is the stand-in's recorded Open-Meteo answer: the same observation every time.
            let feature = try await daemon.call("search", ["city": "Berlin"])
            #expect(feature.provider == "open-meteo" && feature["properties"]?["units"] == .string(units), "\(feature.serialized)")
            features[units] = feature["properties"]
        }
        let (metric, imperial, standard) = (features["metric"], features["imperial"], features["standard"])
        #expect(metric?["observed_at"] != nil && metric?["observed_at"] != .null)
        #expect(imperial?["observed_at"] == metric?["observed_at"] && standard?["observed_at"] == metric?["observed_at"], "one observation")

        func value(_ properties: JSONValue?, _ name: String) throws -> Double {
            try #require(properties?[name]?.doubleValue, "\(name) in \(properties?.serialized ?? "nil")")
        }
        // Open-Meteo writes temperatures and speeds with 1 decimal in every unit: the conversion is
        // exact only up to those roundings.
        for name in ["temperature", "feels_like"] {
            let celsius = try value(metric, name)
            let fahrenheit = try value(imperial, name)
            #expect(abs(fahrenheit - (celsius * 9 / 5 + 32)) <= 0.05 * 9 / 5 + 0.05 + 1e-9, "\(name): \(celsius) °C, \(fahrenheit) °F")
            let kelvin = try value(standard, name)
            #expect(abs(kelvin - (celsius + 273.15)) <= 0.01, "\(name): \(celsius) °C, \(kelvin) K")
        }
        let metresPerSecond = try value(metric, "wind_speed")
        let milesPerHour = try value(imperial, "wind_speed")
        #expect(metresPerSecond > 0, "a wind to convert")
        #expect(
            abs(milesPerHour - metresPerSecond * 2.23694) <= 0.05 * 2.23694 + 0.05 + 1e-9, "\(metresPerSecond) m/s, \(milesPerHour) mph")
        #expect(try value(standard, "wind_speed") == metresPerSecond, "standard is m/s too")
        let stats = try await replay.stats()
        #expect(stats.openMeteoForecastRequests == 3 && stats.requests == 0, "\(stats)")
    }

    @Test("metrics: an OpenWeatherMap failure and Open-Meteo's answer are counted by endpoint, outcome and provider")
    func metrics() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openWeatherMap, .openMeteo])
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        let daemon = try await DaemonProcess.start(setup)
        let port = try await daemon.webPort()
        try await replay.setFault(.openWeatherMap, "500")
        // A place is looked up by its point: a weather request, no geocoding.
        let feature = try await daemon.call("search", ["place": .object(["name": "Nowhere", "lat": .double(-30), "lon": .double(-140)])])
        #expect(feature.provider == "open-meteo", "\(feature.serialized)")

        let metrics = try await httpRequest(port: port, "/metrics")
        #expect(metrics.status == 200)
        func counter(_ labels: String) -> Double? {
            let prefix = "weatherd_upstream_requests_total{\(labels)} "
            return metrics.text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
        }
        let failed = counter(#"endpoint="weather",outcome="unavailable",provider="openweathermap""#)
        let answered = counter(#"endpoint="weather",outcome="ok",provider="open-meteo""#)
        #expect((failed ?? 0) >= 1, "\(metrics.text)")
        #expect((answered ?? 0) >= 1, "\(metrics.text)")
        #expect(counter(#"endpoint="weather",outcome="ok",provider="openweathermap""#) ?? 0 == 0, "\(metrics.text)")
    }
}
