import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("OpenWeatherMap responses → observations → Features")
struct OpenWeatherMapResponseTests {
    private func decode(_ text: String, units: Units = .metric) -> OpenWeatherMapResponse.Body? {
        OpenWeatherMapResponse.decode(Array(text.utf8), units: units)
    }

    private func observation(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> WeatherObservation {
        try Fixture.observation(Array(text.utf8), sourceLocation: sourceLocation)
    }

    @Test("weather_q_london.json gives exactly the spec's Feature example")
    func londonFeature() throws {
        let feature = WeatherFeature(observation: try Fixture.londonObservation(), source: .text)
        #expect(feature.json.serialized == Fixture.specLondonFeature)
    }

    @Test("weather_q_london.json decodes every field of the observation")
    func londonObservation() throws {
        let o = try Fixture.londonObservation()
        #expect(
            o
                == WeatherObservation(
                    cityID: 2_643_743, name: "London", country: "GB", coordinate: Coordinate(lat: 51.5085, lon: -0.1257),
                    temperature: 8.94, feelsLike: 7.91, tempMin: 7.38, tempMax: 9.98, humidity: 90, pressure: 997,
                    windSpeed: 2.06, windDeg: 250, clouds: 100, condition: "Clouds", conditionDescription: "overcast clouds",
                    icon: "04n", observedAt: Date(timeIntervalSince1970: 1_556_444_155), units: .metric))
    }

    @Test("the Zocca fixture in Kelvin is passed on without conversion")
    func zoccaInKelvin() throws {
        let feature = WeatherFeature(observation: try Fixture.zoccaObservation(), source: .region)
        let expected = try json(
            #"""
            {"type":"Feature","id":"owm:3163858","geometry":{"type":"Point","coordinates":[10.99,44.34]},
             "properties":{"name":"Zocca","state":null,"country":"IT","source":"region","provider":"openweathermap","alternatives":0,
               "temperature":298.48,"feels_like":298.74,"temp_min":297.56,"temp_max":300.05,
               "humidity":64,"pressure":1015,"wind_speed":0.62,"wind_deg":349,"clouds":100,
               "condition":"Rain","description":"moderate rain","icon":"10d","symbol":"🌦",
               "observed_at":"2022-08-30T14:43:12Z","units":"standard","fetched_at":null,"stale":false,"air_quality":null,"alerts":null,"alerts_stale":false}}
            """#)
        #expect(feature.json.serialized == expected.serialized)
    }

    @Test("cod is read as a number and as a string")
    func codNumberOrString() {
        #expect(decode(#"{"cod":"404","message":"city not found"}"#) == .error(code: 404, message: "city not found"))
        #expect(decode(#"{"cod":401,"message":"Invalid API key."}"#) == .error(code: 401, message: "Invalid API key."))
        let weather = #"{"coord":{"lon":1.5,"lat":2.5},"id":7,"cod":"200"}"#
        guard case .weather(let o)? = decode(weather) else {
            Issue.record("not weather")
            return
        }
        #expect(o.cityID == 7)
    }

    @Test("null main, wind, weather, sys and clouds give null properties")
    func nullObjects() throws {
        let o = try observation(
            #"{"coord":{"lon":10.99,"lat":44.34},"main":null,"wind":null,"weather":null,"sys":null,"clouds":null,"dt":null,"id":3163858,"name":"Zocca","cod":200}"#
        )
        let properties = try #require(WeatherFeature(observation: o, source: .text).json["properties"]?.objectValue)
        for key in [
            "country", "temperature", "feels_like", "temp_min", "temp_max", "humidity", "pressure",
            "wind_speed", "wind_deg", "clouds", "condition", "description", "icon", "symbol", "observed_at",
        ] {
            #expect(properties[key] == .null, "\(key)")
        }
        #expect(properties["name"] == "Zocca")
        #expect(properties["units"] == "metric")
    }

    @Test("missing fields give null properties, and every property is present")
    func missingFields() throws {
        let o = try observation(#"{"coord":{"lon":10.99,"lat":44.34},"main":{"temp":20.5},"weather":[{"main":"Rain"}]}"#)
        let properties = try #require(WeatherFeature(observation: o, source: .text).json["properties"]?.objectValue)
        #expect(
            properties.keys == [
                "name", "state", "country", "source", "provider", "alternatives", "temperature", "feels_like", "temp_min", "temp_max",
                "humidity", "pressure", "wind_speed", "wind_deg", "clouds", "condition",
                "description", "icon", "symbol", "observed_at", "units", "fetched_at", "stale", "air_quality", "alerts", "alerts_stale",
            ])
        #expect(properties["temperature"] == .double(20.5))
        #expect(properties["condition"] == "Rain")
        for key in ["name", "country", "feels_like", "humidity", "wind_speed", "description", "icon", "symbol", "observed_at"] {
            #expect(properties[key] == .null, "\(key)")
        }
    }

    @Test("of several weather entries the first one is used")
    func firstWeatherEntry() throws {
        let o = try observation(
            #"""
            {"coord":{"lon":0,"lat":0},"weather":[{"id":701,"main":"Mist","description":"mist","icon":"50n"},{"id":500,"main":"Rain","description":"light rain","icon":"10n"}],"id":1}
            """#)
        #expect(o.condition == "Mist")
        #expect(o.conditionDescription == "mist")
        #expect(o.icon == "50n")
        #expect(WeatherFeature(observation: o, source: .text).json["properties"]?["symbol"] == "🌫")
    }

    @Test("a body without timezone decodes")
    func noTimezone() throws {
        var text = String(decoding: try Fixture.london(), as: UTF8.self)
        text = text.replacingOccurrences(of: #""timezone": 0,"#, with: "")
        #expect(!text.contains("timezone"))
        let feature = WeatherFeature(observation: try observation(text), source: .text)
        #expect(feature.json.serialized == Fixture.specLondonFeature)
    }

    @Test(
        "city id 0 or absent gives the id pt:<lat>,<lon> with 4 decimals",
        arguments: [
            (#"{"coord":{"lon":10.99,"lat":44.34},"id":0}"#, "pt:44.3400,10.9900"),
            (#"{"coord":{"lon":151.2093,"lat":-33.8688}}"#, "pt:-33.8688,151.2093"),
            (#"{"coord":{"lon":-0.12574,"lat":51.50853},"id":null}"#, "pt:51.5085,-0.1257"),
        ])
    func pointIDs(_ body: String, _ id: String) throws {
        let feature = WeatherFeature(observation: try observation(body), source: .around)
        #expect(feature.id == id)
        #expect(feature.json["id"] == .string(id))
    }

    @Test("a body without coordinates, or that is not a JSON object, is not weather")
    func notWeather() {
        #expect(decode(#"{"cod":200,"name":"Nowhere"}"#) == .error(code: 200, message: nil))
        #expect(decode("<html><body>502 Bad Gateway</body></html>") == nil)
        #expect(decode("[1,2]") == nil)
        #expect(decode("") == nil)
    }

    @Test(
        "each icon code has its glyph; an unknown code has none",
        arguments: [
            ("01d", "☀"), ("01n", "☾"), ("02d", "⛅"), ("03n", "☁"), ("04d", "☁"), ("09d", "🌧"),
            ("10d", "🌦"), ("10n", "🌧"), ("11d", "⛈"), ("13n", "❄"), ("50d", "🌫"),
        ])
    func symbols(_ icon: String, _ glyph: String) {
        #expect(WeatherSymbol.glyph(forIcon: icon) == glyph)
    }

    @Test("an unknown icon code has no symbol")
    func unknownSymbol() {
        #expect(WeatherSymbol.glyph(forIcon: "99d") == nil)
        #expect(WeatherSymbol.glyph(forIcon: "") == nil)
    }
}
