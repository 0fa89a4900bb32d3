import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Open-Meteo responses: the recorded answers, units and times")
struct OpenMeteoResponseTests {
    /// Where the Berlin answer was asked (Open-Meteo answers for 52.52, 13.419998, its grid cell).
    static let berlin = Coordinate(lat: 52.52, lon: 13.41)

    /// `2021-11-24T00:00` in Berlin (UTC+1): the first hourly step of the fixture.
    static let firstStep = Date(timeIntervalSince1970: 1_637_708_400)  // 2021-11-23T23:00:00Z

    static func point(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        let body = OpenMeteoForecastResponse.decode(bytes)
        guard case .points(let points)? = body, points.count == 1 else {
            Issue.record("not one point: \(String(describing: body))", sourceLocation: sourceLocation)
            throw Fixture.FixtureError.notWeather
        }
        return points[0]
    }

    static func point(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        try point(Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func berlinObservation(units: Units = .metric) throws -> WeatherObservation {
        try #require(OpenMeteoForecastResponse.observation(try point(Fixture.berlinForecast()), at: berlin, units: units))
    }

    static func berlinForecast(units: Units = .metric, now: Date = firstStep) throws -> WeatherForecast {
        try #require(OpenMeteoForecastResponse.forecast(try point(Fixture.berlinForecast()), at: berlin, units: units, now: now))
    }

    // MARK: Current weather

    @Test("Berlin's current block: km/h to m/s, local time to UTC, the code's condition, what it lacks nil")
    func berlinCurrent() throws {
        let observation = try Self.berlinObservation()
        var expected = WeatherObservation(
            coordinate: Self.berlin, temperature: 5.5, windSpeed: 1.47, windDeg: 168,
            condition: "Clouds", conditionDescription: "overcast", icon: "04d",
            observedAt: Date(timeIntervalSince1970: 1_637_791_200),  // 2021-11-24T23:00 CET = 22:00Z
            units: .metric)
        expected.provider = "open-meteo"
        #expect(observation == expected)
        #expect(observation.featureID == "pt:52.5200,13.4100", "the point asked, not Open-Meteo's grid cell")
        #expect(Timestamp.iso8601(try #require(observation.observedAt)) == "2021-11-24T22:00:00Z")
    }

    @Test("as a Feature: provider open-meteo, pt: id, the symbol of its icon, null for what it does not give")
    func berlinFeature() throws {
        let json = WeatherFeature(observation: try Self.berlinObservation(), source: .text).json
        #expect(json["id"] == "pt:52.5200,13.4100")
        let properties = try #require(json["properties"]?.objectValue)
        #expect(properties["provider"] == "open-meteo")
        #expect(properties["symbol"] == "☁")
        #expect(properties["wind_speed"] == .double(1.47))
        for name in ["temp_min", "temp_max", "humidity", "pressure", "clouds", "feels_like", "name", "country"] {
            #expect(properties[name] == .null, "\(name)")
        }
    }

    @Test("a searched place with a GeoNames id names the answer geonames:<id>")
    func geonamesID() throws {
        let place = Place(
            name: "Berlin", state: "Land Berlin", country: "DE", coordinate: Self.berlin, provider: "open-meteo", geonamesID: 2_950_159)
        let named = try Self.berlinObservation().named(after: place, alternatives: 0)
        #expect(named.featureID == "geonames:2950159")
    }

    @Test("units: standard is Kelvin and m/s, imperial °F and mph, whatever the answer's own units")
    func units() throws {
        let standard = try Self.berlinObservation(units: .standard)
        #expect(standard.temperature == 278.65)
        #expect(standard.windSpeed == 1.47)
        #expect(standard.units == .standard)
        let imperial = try Self.berlinObservation(units: .imperial)
        #expect(imperial.temperature == 41.9)
        #expect(imperial.windSpeed == 3.29)  // 5.3 km/h
    }

    @Test("an answer as weatherd asks it: unixtime, m/s, every variable, is_day 0 is night")
    func askedAnswer() throws {
        let point = try Self.point(
            #"""
            {"latitude":48.84,"longitude":2.36,"utc_offset_seconds":0,"timezone":"GMT",
             "current_units":{"time":"unixtime","interval":"seconds","temperature_2m":"°C","apparent_temperature":"°C",
               "relative_humidity_2m":"%","pressure_msl":"hPa","wind_speed_10m":"m/s","wind_direction_10m":"°",
               "cloud_cover":"%","weather_code":"wmo code","is_day":""},
             "current":{"time":1700000100,"interval":900,"temperature_2m":7.25,"apparent_temperature":4.1,
               "relative_humidity_2m":81,"pressure_msl":1012.4,"wind_speed_10m":3.2,"wind_direction_10m":225,
               "cloud_cover":12,"weather_code":0,"is_day":0}}
            """#)
        let observation = try #require(OpenMeteoForecastResponse.observation(point, at: Coordinate(lat: 48.85, lon: 2.35), units: .metric))
        #expect(observation.temperature == 7.25 && observation.feelsLike == 4.1)
        #expect(observation.humidity == 81 && observation.pressure == 1012.4 && observation.clouds == 12)
        #expect(observation.windSpeed == 3.2 && observation.windDeg == 225)
        #expect(observation.condition == "Clear" && observation.conditionDescription == "clear sky" && observation.icon == "01n")
        #expect(observation.observedAt == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(observation.coordinate == Coordinate(lat: 48.85, lon: 2.35))
        #expect(WeatherFeature(observation: observation, source: .region).json["properties"]?["symbol"] == "☾")
    }

    @Test("nulls, missing values, an unknown weather code and an unknown unit are nil")
    func missingValues() throws {
        let point = try Self.point(
            #"""
            {"utc_offset_seconds":0,"current_units":{"temperature_2m":"K","wind_speed_10m":"furlong/fortnight"},
             "current":{"time":null,"temperature_2m":280,"wind_speed_10m":1,"relative_humidity_2m":null,
               "weather_code":42,"is_day":1}}
            """#)
        let observation = try #require(OpenMeteoForecastResponse.observation(point, at: Coordinate(lat: 1, lon: 2), units: .metric))
        var expected = WeatherObservation(coordinate: Coordinate(lat: 1, lon: 2), units: .metric)
        expected.provider = "open-meteo"
        #expect(observation == expected)
    }

    @Test("an answer without a current block is no weather")
    func noCurrent() throws {
        #expect(
            OpenMeteoForecastResponse.observation(
                try Self.point(#"{"latitude":1,"longitude":2}"#), at: Coordinate(lat: 1, lon: 2), units: .metric) == nil)
    }

    // MARK: The list form

    @Test("an array answers several points, in the order asked")
    func list() throws {
        let body = #"""
            [{"latitude":52.52,"longitude":13.42,"current":{"time":1700000000,"temperature_2m":1.5}},
             {"latitude":48.86,"longitude":2.34,"current":{"time":1700000000,"temperature_2m":9}}]
            """#
        guard case .points(let points)? = OpenMeteoForecastResponse.decode(Array(body.utf8)) else {
            Issue.record("not points")
            return
        }
        #expect(points.count == 2)
        #expect(points.map { $0["current"]?["temperature_2m"]?.doubleValue } == [1.5, 9])
    }

    @Test("bodies that are not points: garbage, an array with a non-object, a bare number")
    func notPoints() {
        for body in ["<html>", "[1, {}]", "42", "\"text\"", ""] {
            #expect(OpenMeteoForecastResponse.decode(Array(body.utf8)) == nil, "\(body)")
        }
    }

    @Test("an error body gives its reason")
    func errorBody() {
        let body = #"{"error":true,"reason":"Latitude must be in range of -90 to 90°. Given: 91.0."}"#
        #expect(
            OpenMeteoForecastResponse.decode(Array(body.utf8)) == .error(reason: "Latitude must be in range of -90 to 90°. Given: 91.0."))
        #expect(OpenMeteoForecastResponse.decode(Array(#"{"error":true}"#.utf8)) == .error(reason: nil))
    }

    // MARK: Forecast

    @Test("Berlin's 48 hourly steps: one hour each, times in UTC, km/h to m/s, precipitation as rain_3h")
    func berlinSteps() throws {
        let forecast = try Self.berlinForecast()
        #expect(forecast.step == 3600)
        #expect(forecast.steps.count == 48)
        #expect(forecast.steps.first?.at == Self.firstStep)
        #expect(forecast.steps.last?.at == Self.firstStep.addingTimeInterval(47 * 3600))
        #expect(zip(forecast.steps, forecast.steps.dropFirst()).allSatisfy { $1.at.timeIntervalSince($0.at) == 3600 })
        #expect(
            forecast.steps[0]
                == ForecastStep(
                    at: Self.firstStep, temperature: 6.9, feelsLike: 4.4, humidity: 95, pressure: 1025.2,
                    windSpeed: 2.89, windDeg: 261, clouds: 100, rain3h: 0,
                    condition: "Clouds", conditionDescription: "overcast", icon: "04d"))
        let drizzle = forecast.steps[4]
        #expect(drizzle.condition == "Drizzle" && drizzle.conditionDescription == "light drizzle" && drizzle.icon == "09d")
        #expect(drizzle.rain3h == 0.03 && drizzle.windSpeed == 2.44)  // 8.8 km/h
        let rain = forecast.steps[15]
        #expect(rain.condition == "Rain" && rain.conditionDescription == "light rain" && rain.icon == "10d")
        #expect(rain.rain3h == 0.06)
        #expect(forecast.steps.allSatisfy { $0.pop == nil && $0.snow3h == nil && $0.tempMin == nil && $0.tempMax == nil })
        var place = WeatherObservation(coordinate: Self.berlin, units: .metric)
        place.provider = "open-meteo"
        #expect(forecast.place == place)
    }

    @Test("the first step is the one in progress: steps that ended are left out")
    func fromNow() throws {
        let inProgress = Date(timeIntervalSince1970: 1_637_793_000)  // 2021-11-24T22:30:00Z
        let forecast = try Self.berlinForecast(now: inProgress)
        #expect(forecast.steps.count == 25)
        #expect(forecast.steps.first?.at == Date(timeIntervalSince1970: 1_637_791_200), "22:00Z, in progress")
        let onTheHour = try Self.berlinForecast(now: Date(timeIntervalSince1970: 1_637_794_800))  // 23:00:00Z
        #expect(onTheHour.steps.first?.at == Date(timeIntervalSince1970: 1_637_794_800), "the step that just ended is gone")
        #expect(try Self.berlinForecast(now: Date(timeIntervalSince1970: 2_000_000_000)).steps.isEmpty)
    }

    @Test("as the forecast method answers it: forecast_step 3600, hours counted in one-hour steps")
    func feature() throws {
        let json = try Self.berlinForecast().feature(hours: 24)
        #expect(json["properties"]?["forecast_step"] == .integer(3600))
        let steps = try #require(json["properties"]?["forecast"]?.arrayValue)
        #expect(steps.count == 24)
        #expect(steps.first?["at"] == "2021-11-23T23:00:00Z")
        #expect(steps.first?["rain_3h"] == .double(0))
        #expect(steps.first?["symbol"] == "☁")
        #expect(json["properties"]?["provider"] == "open-meteo")
    }

    @Test("rain is rain plus showers; snowfall in cm is mm × 10; pop is a fraction; is_day picks the icon")
    func askedForecast() throws {
        let point = try Self.point(
            #"""
            {"utc_offset_seconds":0,
             "hourly_units":{"time":"unixtime","temperature_2m":"°F","wind_speed_10m":"mph","precipitation_probability":"%",
               "rain":"mm","showers":"mm","snowfall":"cm"},
             "hourly":{"time":[1700000000,1700003600,1700007200],
               "temperature_2m":[32,50,null],"wind_speed_10m":[10,0,null],
               "precipitation_probability":[0,45,null],"rain":[0.4,null,null],"showers":[1.1,0.2,null],
               "precipitation":[9,9,9],"snowfall":[0.7,0,null],"weather_code":[81,71,null],"is_day":[1,0,null]}}
            """#)
        let forecast = try #require(
            OpenMeteoForecastResponse.forecast(
                point, at: Coordinate(lat: 1, lon: 2), units: .imperial, now: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(forecast.steps.map(\.temperature) == [32, 50, nil])
        #expect(forecast.steps.map(\.windSpeed) == [10, 0, nil])
        #expect(forecast.steps.map(\.pop) == [0, 0.45, nil])
        #expect(forecast.steps.map(\.rain3h) == [1.5, 0.2, nil], "precipitation only when the answer has neither rain nor showers")
        #expect(forecast.steps.map(\.snow3h) == [7, 0, nil])
        #expect(forecast.steps.map(\.icon) == ["09d", "13n", nil])
        #expect(forecast.steps.map(\.conditionDescription) == ["moderate rain showers", "light snow", nil])
        let metric = try #require(
            OpenMeteoForecastResponse.forecast(point, at: Coordinate(lat: 1, lon: 2), units: .standard, now: .distantPast))
        #expect(metric.steps.map(\.temperature) == [273.15, 283.15, nil])
        #expect(metric.steps.map(\.windSpeed) == [4.47, 0, nil])
    }

    @Test("arrays shorter than time and entries without a time are handled; no hourly block is no forecast")
    func ragged() throws {
        let point = try Self.point(
            #"""
            {"hourly":{"time":[1700000000,"garbage",1700007200],"temperature_2m":[1]}}
            """#)
        let forecast = try #require(
            OpenMeteoForecastResponse.forecast(point, at: Coordinate(lat: 1, lon: 2), units: .metric, now: .distantPast))
        #expect(forecast.steps.map(\.at) == [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_007_200)])
        #expect(forecast.steps.map(\.temperature) == [1, nil])
        #expect(
            OpenMeteoForecastResponse.forecast(
                try Self.point(#"{"current":{}}"#), at: Coordinate(lat: 1, lon: 2), units: .metric, now: .distantPast) == nil)
    }

    // MARK: Units and times

    @Test(
        "wind speeds in any of Open-Meteo's units",
        arguments: [
            ("km/h", 36.0, Units.metric, 10.0), ("m/s", 10, .metric, 10), ("mph", 10, .metric, 4.47), ("kn", 10, .metric, 5.14),
            ("km/h", 36, .imperial, 22.37), ("m/s", 10, .imperial, 22.37), ("mph", 10, .imperial, 10), ("kn", 10, .imperial, 11.51),
            ("km/h", 36, .standard, 10),
        ])
    func windSpeeds(_ unit: String, _ value: Double, _ units: Units, _ expected: Double) {
        #expect(OpenMeteoUnit.windSpeed(value, unit: unit, to: units) == expected)
    }

    @Test(
        "temperatures in °C or °F",
        arguments: [
            ("°C", 20.0, Units.metric, 20.0), ("°C", 20, .imperial, 68), ("°C", -40, .imperial, -40), ("°C", 20, .standard, 293.15),
            ("°F", 68, .metric, 20), ("°F", 68, .imperial, 68), ("°F", 32, .standard, 273.15),
        ])
    func temperatures(_ unit: String, _ value: Double, _ units: Units, _ expected: Double) {
        #expect(OpenMeteoUnit.temperature(value, unit: unit, to: units) == expected)
    }

    @Test("precipitation in mm, cm or inch is mm")
    func precipitation() {
        #expect(OpenMeteoUnit.millimetres(1.25, unit: "mm") == 1.25)
        #expect(OpenMeteoUnit.millimetres(0.7, unit: "cm") == 7)
        #expect(OpenMeteoUnit.millimetres(0.1, unit: "inch") == 2.54)
        #expect(OpenMeteoUnit.millimetres(0.3, unit: nil, absent: "cm") == 3)
        #expect(OpenMeteoUnit.millimetres(1, unit: "l/m²") == nil)
    }

    @Test(
        "local ISO 8601 times with their UTC offset, and Unix seconds",
        arguments: [
            ("2021-11-24T23:00", 3600, 1_637_791_200.0), ("2021-11-24T23:00:30", 3600, 1_637_791_230),
            ("2024-02-29T12:00", 0, 1_709_208_000), ("2021-11-24T17:00", -18_000, 1_637_791_200),
            ("1970-01-01T00:00", 0, 0),
        ])
    func times(_ text: String, _ offset: Int, _ expected: Double) {
        #expect(OpenMeteoUnit.time(.string(text), utcOffset: offset) == Date(timeIntervalSince1970: expected))
    }

    @Test(
        "texts that are no time are nil",
        arguments: [
            "2021-11-24", "2021-11-24 23:00", "2021-13-01T00:00", "2021-11-24T24:00", "21-11-24T23:00", "2021-11-24T23:0",
            "2021-11-24T23:00Z", "", "T",
        ])
    func notTimes(_ text: String) {
        #expect(OpenMeteoUnit.time(.string(text), utcOffset: 0) == nil)
    }

    @Test("Unix seconds are UTC whatever the offset")
    func unixTime() {
        #expect(OpenMeteoUnit.time(.integer(1_700_000_000), utcOffset: 3600) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(OpenMeteoUnit.time(.bool(true), utcOffset: 0) == nil)
        #expect(OpenMeteoUnit.time(nil, utcOffset: 0) == nil)
    }

    // MARK: Geocoding

    @Test("Enschede: two places, best first, with GeoNames ids, admin1 as state and the country code")
    func enschede() throws {
        guard case .places(let found)? = OpenMeteoGeocodingResponse.decode(try Fixture.enschedePlaces()) else {
            Issue.record("not places")
            return
        }
        #expect(
            found.map(\.place) == [
                Place(
                    name: "Enschede", state: "Overijssel", country: "NL", coordinate: Coordinate(lat: 52.21833, lon: 6.89583),
                    provider: "open-meteo", geonamesID: 2_756_071),
                Place(
                    name: "Enschede Airport Twente", state: "Overijssel", country: "NL", coordinate: Coordinate(lat: 52.27, lon: 6.87417),
                    provider: "open-meteo", geonamesID: 6_296_691),
            ])
        #expect(found.map(\.countryName) == ["The Netherlands", "The Netherlands"])
    }

    @Test("no results member, or an empty one, is no place; entries without a name or position are skipped")
    func emptyAndBroken() throws {
        #expect(OpenMeteoGeocodingResponse.decode(try Fixture.emptyPlaces()) == .places([]))
        #expect(OpenMeteoGeocodingResponse.decode(Array(#"{"results":[]}"#.utf8)) == .places([]))
        #expect(OpenMeteoGeocodingResponse.decode(Array(#"{"results":null}"#.utf8)) == .places([]))
        let broken = #"""
            {"results":[{"id":1,"latitude":1,"longitude":2},{"id":2,"name":"x","latitude":95,"longitude":2},
                        {"name":"Nowhere","latitude":0,"longitude":0,"admin1":"","country_code":"xz"}]}
            """#
        #expect(
            OpenMeteoGeocodingResponse.decode(Array(broken.utf8))
                == .places([
                    .init(place: Place(name: "Nowhere", country: "XZ", coordinate: Coordinate(lat: 0, lon: 0), provider: "open-meteo"))
                ]))
    }

    @Test("an error body, garbage and results that are not a list")
    func geocodingErrors() {
        #expect(
            OpenMeteoGeocodingResponse.decode(Array(#"{"error":true,"reason":"Parameter count must be between 1 and 100."}"#.utf8))
                == .error(reason: "Parameter count must be between 1 and 100."))
        for body in ["<html>", "[]", #"{"results":{}}"#] {
            #expect(OpenMeteoGeocodingResponse.decode(Array(body.utf8)) == nil, "\(body)")
        }
    }
}
