import Foundation
import Testing

@testable import WeatherCore

private func london(units: Units, temperature: Double = 8.94, windSpeed: Double = 2.06, fetchedAt: Double = 1_000) -> WeatherFeature {
    var observation = WeatherObservation(
        cityID: 2_643_743, name: "London", country: "GB", coordinate: Coordinate(lat: 51.5085, lon: -0.1257),
        temperature: temperature, feelsLike: temperature - 1, humidity: 90, pressure: 997, windSpeed: windSpeed, clouds: 75,
        observedAt: Date(timeIntervalSince1970: 1_556_444_155), units: units)
    observation.fetchedAt = Date(timeIntervalSince1970: fetchedAt)
    return WeatherFeature(observation: observation, source: .city)
}

private func values(_ samples: [WeatherSeries]) -> [WeatherSeries.Measure: Double] {
    Dictionary(uniqueKeysWithValues: samples.map { ($0.measure, $0.value) })
}

@Suite("Metrics: the weather series of the watched cities")
struct WeatherSeriesTests {
    @Test("a metric feature: every series in base units, labelled city, id, country, provider")
    func metric() {
        let samples = WeatherSeries.samples(of: london(units: .metric), city: "London,GB")
        #expect(
            samples.count == WeatherSeries.Measure.allCases.count - 2,
            "every weather series; no air quality index (it has none), no alerts (not known)")
        #expect(
            Set(samples.map(\.labels)) == [
                WeatherSeries.Labels(city: "London", id: "owm:2643743", country: "GB", provider: "openweathermap")
            ])
        let value = values(samples)
        #expect(value[.temperature] == 8.94)
        #expect(value[.feelsLike] == 8.94 - 1)
        #expect(value[.humidity] == 0.9)
        #expect(value[.pressure] == 99_700)
        #expect(value[.windSpeed] == 2.06)
        #expect(value[.cloudiness] == 0.75)
        #expect(value[.observed] == 1_556_444_155)
    }

    @Test("imperial and standard features are converted to Celsius and meters per second")
    func conversions() {
        let imperial = values(WeatherSeries.samples(of: london(units: .imperial, temperature: 50, windSpeed: 10), city: "London"))
        #expect(imperial[.temperature] == 10)
        #expect(abs((imperial[.windSpeed] ?? 0) - 4.4704) < 1e-9)
        #expect(imperial[.pressure] == 99_700)
        let standard = values(WeatherSeries.samples(of: london(units: .standard, temperature: 283.15, windSpeed: 3), city: "London"))
        #expect(abs((standard[.temperature] ?? 0) - 10) < 1e-9)
        #expect(standard[.windSpeed] == 3)
    }

    @Test("a value the provider did not send has no series; a stale feature keeps its values")
    func missingAndStale() {
        var feature = london(units: .metric)
        feature.observation.feelsLike = nil
        feature.stale = true
        let samples = WeatherSeries.samples(of: feature, city: "London")
        #expect(!samples.contains { $0.measure == .feelsLike })
        #expect(values(samples)[.temperature] == 8.94)
    }

    @Test("a feature without a name is labelled with the watched entry; two entries of one place give one set")
    func labels() {
        var feature = london(units: .metric)
        feature.observation.name = nil
        feature.observation.country = nil
        let samples = WeatherSeries.samples(of: [("London,GB", feature), ("london", feature)])
        #expect(
            samples.count == WeatherSeries.Measure.allCases.count - 2,
            "every weather series; no air quality index (it has none), no alerts (not known)")
        #expect(samples.allSatisfy { $0.labels.city == "London,GB" && $0.labels.country == "" })
    }

    @Test("help texts say the unit; names are the contract's")
    func names() {
        #expect(
            WeatherSeries.Measure.allCases.map(\.name) == [
                "weatherd_weather_temperature_celsius", "weatherd_weather_feels_like_celsius",
                "weatherd_weather_relative_humidity_ratio", "weatherd_weather_pressure_pascals",
                "weatherd_weather_wind_speed_meters_per_second", "weatherd_weather_cloudiness_ratio",
                "weatherd_weather_observed_timestamp_seconds", "weatherd_weather_air_quality_index", "weatherd_weather_alerts",
            ])
        let units = [
            "degrees Celsius", "degrees Celsius", "ratio", "pascals", "meters per second", "ratio", "seconds", "scale", "severity",
        ]
        for (measure, unit) in zip(WeatherSeries.Measure.allCases, units) { #expect(measure.help.contains(unit), "\(measure)") }
    }

    @Test("alerts: one series per severity, 0 where none, labelled with the alerts' provider; none while not known")
    func alerts() {
        var feature = london(units: .metric)
        let none = WeatherSeries.samples(of: feature, city: "London").filter { $0.measure == .alerts }
        #expect(none.isEmpty)
        feature.alerts = [
            Alert(id: "a", event: "Flood Watch", severity: .severe, provider: "nws"),
            Alert(id: "b", event: "Wind Advisory", severity: .minor, provider: "nws"),
            Alert(id: "c", event: "Storm Warning", severity: .severe, provider: "nws"),
        ]
        let samples = WeatherSeries.samples(of: feature, city: "London").filter { $0.measure == .alerts }
        #expect(samples.map { $0.labels.severity } == ["extreme", "severe", "moderate", "minor", "unknown"])
        #expect(samples.map(\.value) == [0, 2, 0, 1, 0])
        #expect(samples.allSatisfy { $0.labels.provider == "nws" && $0.labels.id == "owm:2643743" })
        #expect(samples.first?.labels.pairs.map(\.0) == ["city", "id", "country", "provider", "severity"])
        feature.alerts = []
        #expect(WeatherSeries.samples(of: feature, city: "London").filter { $0.measure == .alerts }.map(\.value) == [0, 0, 0, 0, 0])
    }

    @Test("the set: a city gone, or its labels changed, drops its series; the others are set again")
    func set() {
        var set = WeatherSeriesSet()
        let first = set.update(WeatherSeries.samples(of: [("London", london(units: .metric))]), version: 1)
        #expect(first.set.count == 7 && first.drop.isEmpty)
        // Failover: another provider answers; the old labels go.
        var other = london(units: .metric, temperature: 9)
        other.observation.provider = "open-meteo"
        let second = set.update(WeatherSeries.samples(of: [("London", other)]), version: 2)
        #expect(second.set.count == 7 && second.drop.count == 7)
        #expect(second.drop.allSatisfy { $0.labels.provider == "openweathermap" })
        #expect(set.keys.allSatisfy { $0.labels.provider == "open-meteo" })
        let gone = set.update([], version: 3)
        #expect(gone.set.isEmpty && gone.drop.count == 7 && set.keys.isEmpty)
    }

    @Test("samples read before those applied (two scrapes at once) change nothing; those of the same version apply")
    func olderSamples() {
        var set = WeatherSeriesSet()
        _ = set.update([], version: 5)
        let older = set.update(WeatherSeries.samples(of: [("London", london(units: .metric))]), version: 4)
        #expect(older.set.isEmpty && older.drop.isEmpty && set.keys.isEmpty)
        let same = set.update(WeatherSeries.samples(of: [("London", london(units: .metric))]), version: 5)
        #expect(same.set.count == 7 && set.keys.count == 7)
    }
}
