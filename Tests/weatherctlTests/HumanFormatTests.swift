import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import weatherctl

@Suite("HumanFormat")
struct HumanFormatTests {
    @Test("the London fixture (metric) reads as the spec's example line")
    func londonLine() throws {
        let feature = WeatherFeature(observation: try Fixture.londonObservation(), source: .text)
        #expect(HumanFormat.feature(feature.json) == "London, GB  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s")
    }

    @Test("the Zocca fixture (standard) is in kelvin")
    func zoccaLine() throws {
        let feature = WeatherFeature(observation: try Fixture.zoccaObservation(), source: .text)
        #expect(HumanFormat.feature(feature.json) == "Zocca, IT  298.5 K  🌦 moderate rain  humidity 64%  wind 0.6 m/s")
    }

    @Test("imperial units read °F and mph")
    func imperial() throws {
        var observation = try Fixture.londonObservation()
        observation.units = .imperial
        #expect(
            HumanFormat.feature(WeatherFeature(observation: observation, source: .text).json)
                == "London, GB  8.9 °F  ☁ overcast clouds  humidity 90%  wind 2.1 mph")
    }

    @Test("a point without a name reads as its coordinates; missing values are left out")
    func pointWithoutName() {
        let observation = WeatherObservation(coordinate: Coordinate(lat: 44.34, lon: 10.99), temperature: 21.04, units: .metric)
        #expect(HumanFormat.feature(WeatherFeature(observation: observation, source: .around).json) == "44.3400, 10.9900  21.0 °C")
    }

    @Test("a state reads as one line")
    func stateLine() {
        let state = DaemonState(
            pending: 1, phase: .loading, input: .text(city: "Seoul"), gps: GPSStatus(enabled: true),
            updatedAt: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(
            HumanFormat.state(state.json)
                == #"running  phase loading  input text "Seoul"  pending 1  gps not connected  budget 0/60 a minute"#)
        var blocked = state
        blocked.budget = BudgetStatus(requestsPerMinute: 60, used: 12, blockedUntil: Date(timeIntervalSince1970: 1_795_000_060))
        #expect(
            HumanFormat.state(blocked.json).hasSuffix("budget 12/60 a minute  blocked until 2026-11-18T11:07:40Z"),
            "\(HumanFormat.state(blocked.json))")
    }
}

@Suite("HumanFormat: forecast")
struct HumanFormatForecastTests {
    @Test("the place, then one line per step: time, symbol, temperature, precipitation probability, wind")
    func lines() throws {
        guard case .forecast(var forecast)? = OpenWeatherMapForecastResponse.decode(try Fixture.parisForecast(), units: .metric) else {
            Issue.record("the fixture does not decode")
            return
        }
        forecast.steps[1].pop = 0.35
        let lines = HumanFormat.forecast(forecast.feature(hours: 120), timeZone: .utc)
        #expect(
            lines == [
                "Paris, FR",
                "Sat 01 Dec 00:00  🌧     6.7 °C  precip    –  wind  3.8 m/s SW  light rain",
                "Wed 05 Dec 21:00  🌧     6.4 °C  precip  35%  wind  2.7 m/s NW  light rain",
            ])
    }

    @Test("compass points")
    func compass() {
        #expect(
            [0, 22, 23, 90, 225, 337, 338, 359, 360].map { HumanFormat.compassPoint(Double($0)) } == [
                "N", "N", "NE", "E", "SW", "NW", "N", "N", "N",
            ])
    }
}

@Suite("HumanFormat: places")
struct HumanFormatPlacesTests {
    @Test("a place reads as name, state, country and its position to 2 decimals")
    func placeLine() {
        let place = Place(
            name: "Springfield", state: "Illinois", country: "US", coordinate: Coordinate(lat: 39.80168, lon: -89.64371),
            provider: "openweathermap")
        #expect(HumanFormat.place(listed: place.json) == "Springfield, Illinois, US  39.80, -89.64")
        let noState = Place(name: "London", country: "GB", coordinate: Coordinate(lat: 51.5085, lon: -0.1257), provider: "openweathermap")
        #expect(HumanFormat.place(listed: noState.json) == "London, GB  51.51, -0.13")
    }

    @Test("a search whose name matched others adds the hint line; one that matched one place does not")
    func hint() throws {
        var observation = try Fixture.londonObservation()
        #expect(HumanFormat.alternativesHint(WeatherFeature(observation: observation, source: .text).json, searched: "London") == nil)
        observation.name = "Springfield"
        observation.state = "Illinois"
        observation.alternatives = 4
        let feature = WeatherFeature(observation: observation, source: .text).json
        #expect(
            HumanFormat.alternativesHint(feature, searched: "Springfield")
                == "(4 more places named Springfield: weatherctl places Springfield)")
        #expect(
            HumanFormat.alternativesHint(feature, searched: "New York") == "(4 more places named Springfield: weatherctl places 'New York')"
        )
        #expect(HumanFormat.feature(feature).hasPrefix("Springfield, Illinois, GB  8.9 °C"))
    }
}

@Suite("HumanFormat: providers")
struct HumanFormatProviderTests {
    @Test("weather from Open-Meteo is credited once, after the result; OpenWeatherMap's is not")
    func credit() throws {
        var observation = try Fixture.londonObservation()
        let owm = WeatherFeature(observation: observation, source: .text).json
        #expect(HumanFormat.credited(["line"], for: owm) == "line")
        observation.provider = "open-meteo"
        let om = WeatherFeature(observation: observation, source: .text).json
        #expect(HumanFormat.credited(["line", "hint"], for: om) == "line\nhint\nWeather data by Open-Meteo.com (CC BY 4.0)")
        #expect(HumanFormat.attribution([owm, om, om]) == HumanFormat.openMeteoCredit)
        #expect(HumanFormat.attribution([owm]) == nil)
    }

    @Test("the state line says how each provider is")
    func providers() {
        var state = DaemonState(
            pending: 0, phase: .empty, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date(timeIntervalSince1970: 1_795_000_000))
        state.providers = [
            ProviderStatus(name: .openWeatherMap, usable: false, error: "no API key"),
            ProviderStatus(name: .openMeteo, usable: true, usedMinute: 3, usedDay: 40),
        ]
        #expect(
            HumanFormat.state(state.json).hasSuffix("providers openweathermap (no API key), open-meteo ok"),
            "\(HumanFormat.state(state.json))")
        state.providers[1] = ProviderStatus(
            name: .openMeteo, usable: false, blockedUntil: Date(timeIntervalSince1970: 1_795_000_060), error: "x")
        #expect(HumanFormat.state(state.json).hasSuffix("open-meteo (blocked until 2026-11-18T11:07:40Z)"))
    }

    @Test("the state line says which provider's answers are sample data (the offline demo's stand-in)")
    func sampleData() {
        var state = DaemonState(
            pending: 0, phase: .populated, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date(timeIntervalSince1970: 1_795_000_000)
        )
        var failing = ProviderStatus(name: .openWeatherMap, usable: false, error: "OpenWeatherMap answered HTTP 503")
        failing.sampleData = true
        var answering = ProviderStatus(name: .openMeteo, usable: true, usedMinute: 3, usedDay: 40)
        answering.sampleData = true
        state.providers = [failing, answering]
        #expect(state.json["providers"]?.arrayValue?.allSatisfy { $0["sample_data"] == .bool(true) } == true)
        #expect(
            HumanFormat.state(state.json).hasSuffix(
                "providers openweathermap (OpenWeatherMap answered HTTP 503) (sample data), open-meteo ok (sample data)"),
            "\(HumanFormat.state(state.json))")
        state.providers[1].sampleData = false
        #expect(state.json["providers"]?.arrayValue?.last?["sample_data"] == nil, "only when true")
        #expect(HumanFormat.state(state.json).hasSuffix(", open-meteo ok"))
    }
}

@Suite("HumanFormat: where a located feature's fix came from")
struct FixSourceFormatTests {
    private func feature(fix: JSONObject?) -> JSONValue {
        var properties: JSONObject = ["name": "Hamilton"]
        if let fix { properties["fix"] = .object(fix) }
        return .object(["type": "Feature", "properties": .object(properties)])
    }

    @Test("the source, the OwnTracks device and the error")
    func sourceLine() {
        #expect(
            HumanFormat.fixSource(feature(fix: ["source": "gpsd", "horizontal_error": .double(20.9), "mode": .integer(3)]))
                == "from gpsd  ±21 m")
        #expect(
            HumanFormat.fixSource(feature(fix: ["source": "owntracks", "device": "alice/phone", "horizontal_error": .double(12)]))
                == "from owntracks alice/phone  ±12 m")
        #expect(HumanFormat.fixSource(feature(fix: ["source": "browser"])) == "from browser")
    }

    @Test("no line for a feature without a fix")
    func noFix() {
        #expect(HumanFormat.fixSource(feature(fix: nil)) == nil)
    }
}

@Suite("HumanFormat: air quality")
struct HumanFormatAirQualityTests {
    @Test("a feature with air quality: a line with the index of its scale and its band in words, and CAMS credited")
    func airQuality() throws {
        var observation = try Fixture.londonObservation()
        observation.airQuality = AirQuality(europeanAQI: 44, usAQI: 120, pm25: 22.1)
        let json = WeatherFeature(observation: observation, source: .text).json
        #expect(HumanFormat.feature(json) == "London, GB  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s", "its own line")
        #expect(HumanFormat.airQuality(json) == "air quality 44 moderate (European AQI)")
        observation.airQuality?.scale = .us
        #expect(
            HumanFormat.airQuality(WeatherFeature(observation: observation, source: .text).json)
                == "air quality 120 unhealthy for sensitive groups (US AQI)")
        observation.airQuality?.scale = nil
        #expect(HumanFormat.attribution([json]) == "Air quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com")
        observation.provider = "open-meteo"
        #expect(
            HumanFormat.attribution([WeatherFeature(observation: observation, source: .text).json])
                == "Weather data by Open-Meteo.com (CC BY 4.0)\nAir quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com"
        )
    }

    @Test("without air quality (null) nothing is added and nothing credited")
    func none() throws {
        let json = WeatherFeature(observation: try Fixture.londonObservation(), source: .text).json
        #expect(HumanFormat.airQuality(json) == nil)
        #expect(HumanFormat.attribution([json]) == nil)
    }
}
