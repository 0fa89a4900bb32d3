import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// A synthesized forecast starts from the current weather served for the same place: its first step
/// (at most 3 hours on) is that weather a few hours later, whatever the time of day.
@Suite("owm-replay: a synthesized forecast starts from the current weather")
struct ForecastStartTests {
    typealias E = WeatherEndpointTests
    typealias M = OpenMeteoForecastTests

    /// The present of each check: every 3 hours for two days, and minutes off the grid.
    static let presents = (0..<16).map { M.now.addingTimeInterval(Double($0) * 10800 + Double($0 % 5) * 1337) }

    /// How far the first step's temperature may be from the current one: the daily cycle's change in
    /// the 3 hours and 15 minutes between them at most (3.5 °C amplitude), with a little noise.
    static let temperatureSlack = 3.2

    @Test("recorded cities and made-up points: the first step's temperature near the current one, its condition the current one")
    func firstStep() throws {
        let catalog = try WeatherCatalog(directory: TestEnvironment.demoData)
        var places: [(String, RecordedWeather)] = []
        for name in ["London", "Berlin", "Zocca", "Seoul", "Reykjavik"] {
            places.append((name, try #require(catalog.city(matching: CityQuery(name), preferring: .metric), "\(name)")))
        }
        for (lat, lon) in [(-33.5, -120.25), (10.0, 10.0), (62.5, 25.75)] {
            places.append(("\(lat),\(lon)", catalog.weather(near: lat, lon, now: M.now)))
        }
        for (name, weather) in places {
            let current = weather.body(in: .metric)
            let temperature = try #require(current["main"]?["temp"]?.doubleValue)
            let condition = try #require(current["weather"]?.arrayValue?.first?["id"]?.intValue)
            for now in Self.presents {
                let forecast = SynthesizedForecast.forecast(from: weather, now: now).body(in: .metric)
                let first = try #require(forecast["list"]?.arrayValue?.first)
                let firstTemperature = try #require(first["main"]?["temp"]?.doubleValue)
                #expect(
                    abs(firstTemperature - temperature) <= Self.temperatureSlack,
                    "\(name) at \(now): \(firstTemperature) °C after \(temperature) °C")
                // The model has the usual conditions; others (mist, thunder...) are held by their nearest.
                if [800, 801, 802, 803, 804, 300, 500, 501].contains(condition), !(firstTemperature < 1 && condition < 700) {
                    #expect(first["weather"]?.arrayValue?.first?["id"]?.intValue == condition, "\(name) at \(now)")
                }
            }
        }
    }

    @Test("the demo's London (--shift-times): the forecast served starts from the weather served")
    func served() async throws {
        var endpoint = try M.endpoint()
        endpoint.shiftTimes = true
        let weather = try E.json(await E.get(endpoint, "/data/2.5/weather?q=London&units=metric"))
        let forecast = try E.json(await E.get(endpoint, "/data/2.5/forecast?q=London&units=metric"))
        let first = try #require(forecast["list"]?.arrayValue?.first)
        let temperature = try #require(weather["main"]?["temp"]?.doubleValue)
        let firstTemperature = try #require(first["main"]?["temp"]?.doubleValue)
        #expect(abs(firstTemperature - temperature) <= Self.temperatureSlack, "\(firstTemperature) after \(temperature)")
        #expect(first["weather"]?.arrayValue?.first?["id"] == weather["weather"]?.arrayValue?.first?["id"])
        #expect(first["weather"]?.arrayValue?.first?["description"] == "overcast clouds")
    }

    @Test("further on, the spells and the drift take over: the forecast does not stay the current weather")
    func changes() throws {
        let catalog = try WeatherCatalog(directory: TestEnvironment.demoData)
        let london = try #require(catalog.city(matching: CityQuery("London"), preferring: .metric))
        let steps = try #require(SynthesizedForecast.forecast(from: london, now: M.now).body(in: .metric)["list"]?.arrayValue)
        let conditions = Set(steps.compactMap { $0["weather"]?.arrayValue?.first?["id"]?.intValue })
        #expect(conditions.count >= 3, "\(conditions)")
        let temperatures = steps.compactMap { $0["main"]?["temp"]?.doubleValue }
        #expect((temperatures.max() ?? 0) - (temperatures.min() ?? 0) >= 4, "\(temperatures)")
    }
}
