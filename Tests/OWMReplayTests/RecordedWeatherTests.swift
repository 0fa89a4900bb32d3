import Testing

@testable import WeatherCore
@testable import owm_replay

@Suite("RecordedWeather")
struct RecordedWeatherTests {
    /// London as recorded (metric, no gust).
    static let london = RecordedWeather(
        file: "london.metric.json", units: .metric,
        body: [
            "coord": .object(["lon": .double(-0.1257), "lat": .double(51.5085)]),
            "main": .object([
                "temp": .double(8.94), "feels_like": .double(7.91), "temp_min": .double(7.38),
                "temp_max": .double(9.98), "pressure": .integer(997), "humidity": .integer(90),
            ]),
            "wind": .object(["speed": .double(2.06), "deg": .integer(250)]),
            "sys": .object(["country": .string("GB")]),
            "name": .string("London"),
        ])

    @Test("name, country and coordinates are read from the body")
    func accessors() {
        let london = Self.london
        #expect(london.name == "London")
        #expect(london.country == "GB")
        #expect(london.latitude == 51.5085)
        #expect(london.longitude == -0.1257)
    }

    @Test("a body without name, country or coordinates reads as empty name and no values")
    func missingMembers() {
        let empty = RecordedWeather(file: "x", units: .metric, body: [:])
        #expect(empty.name == "")
        #expect(empty.country == nil)
        #expect(empty.latitude == nil)
        #expect(empty.longitude == nil)
    }

    @Test("the body in its own units is the body as read")
    func sameUnits() {
        #expect(Self.london.body(in: .metric) == Self.london.body)
    }

    @Test("metric temperatures convert to kelvin for standard, rounded to 2 decimals")
    func metricToStandard() {
        let main = Self.london.body(in: .standard)["main"]
        #expect(main?["temp"] == .double(282.09))
        #expect(main?["feels_like"] == .double(281.06))
        #expect(main?["temp_min"] == .double(280.53))
        #expect(main?["temp_max"] == .double(283.13))
    }

    @Test("metric converts to imperial: °F and miles per hour, rounded to 2 decimals")
    func metricToImperial() {
        let body = Self.london.body(in: .imperial)
        #expect(body["main"]?["temp"] == .double(48.09))
        #expect(body["wind"]?["speed"] == .double(4.61))
    }

    @Test("standard converts to metric: kelvin to °C, wind speed unchanged")
    func standardToMetric() {
        let zocca = RecordedWeather(
            file: "zocca.standard.json", units: .standard,
            body: [
                "main": .object(["temp": .double(298.48)]),
                "wind": .object(["speed": .double(0.62), "gust": .double(1.18)]),
            ])
        let body = zocca.body(in: .metric)
        #expect(body["main"]?["temp"] == .double(25.33))
        #expect(body["wind"]?["speed"] == .double(0.62))
        #expect(body["wind"]?["gust"] == .double(1.18))
    }

    @Test("a gust is converted when present")
    func gustConverted() {
        let windy = RecordedWeather(
            file: "x", units: .metric,
            body: [
                "wind": .object(["speed": .double(4.02), "gust": .double(7.6)])
            ])
        #expect(windy.body(in: .imperial)["wind"]?["gust"] == .double(17.0))
    }

    @Test("conversion adds no member that was absent")
    func absentStaysAbsent() {
        let body = Self.london.body(in: .imperial)
        #expect(body["wind"]?["gust"] == nil)
        #expect(body["rain"] == nil)
    }

    @Test("every other member keeps its value and its place")
    func othersUnchanged() {
        let body = Self.london.body(in: .imperial)
        #expect(body.keys == Self.london.body.keys)
        #expect(body["main"]?.objectValue?.keys == Self.london.body["main"]?.objectValue?.keys)
        #expect(body["main"]?["pressure"] == .integer(997))
        #expect(body["main"]?["humidity"] == .integer(90))
        #expect(body["wind"]?["deg"] == .integer(250))
        #expect(body["coord"] == Self.london.body["coord"])
        #expect(body["name"] == .string("London"))
    }
}
