import Testing

@testable import WeatherCore
@testable import owm_replay

@Suite("Units (OpenWeatherMap)")
struct UnitsTests {
    @Test("the units query parameter is read case-insensitively")
    func parsesQuery() {
        #expect(Units(query: "metric") == .metric)
        #expect(Units(query: "IMPERIAL") == .imperial)
        #expect(Units(query: "Standard") == .standard)
    }

    @Test("a missing or unknown units parameter means standard")
    func defaultsToStandard() {
        #expect(Units(query: nil) == .standard)
        #expect(Units(query: "") == .standard)
        #expect(Units(query: "kelvin") == .standard)
    }

    @Test("standard temperatures are kelvin")
    func standardTemperature() {
        #expect(Units.standard.celsius(from: 273.15) == 0)
        #expect(Units.standard.temperature(fromCelsius: 100) == 373.15)
    }

    @Test("metric temperatures are degrees Celsius, unchanged")
    func metricTemperature() {
        #expect(Units.metric.celsius(from: 8.94) == 8.94)
        #expect(Units.metric.temperature(fromCelsius: -1.04) == -1.04)
    }

    @Test("imperial temperatures are degrees Fahrenheit")
    func imperialTemperature() {
        #expect(Units.imperial.celsius(from: 212) == 100)
        #expect(Units.imperial.celsius(from: -40) == -40)
        #expect(Units.imperial.temperature(fromCelsius: 0) == 32)
        #expect(Units.imperial.temperature(fromCelsius: 100) == 212)
    }

    @Test("standard and metric speeds are metres per second, unchanged")
    func metricSpeed() {
        for units in [Units.standard, .metric] {
            #expect(units.metresPerSecond(from: 4.12) == 4.12)
            #expect(units.speed(fromMetresPerSecond: 4.12) == 4.12)
        }
    }

    @Test("imperial speeds are miles per hour")
    func imperialSpeed() {
        #expect(Units.imperial.metresPerSecond(from: 1) == 0.44704)
        #expect(abs(Units.imperial.speed(fromMetresPerSecond: 0.44704) - 1) < 1e-12)
        #expect(abs(Units.imperial.speed(fromMetresPerSecond: 10) - 22.369362920544) < 1e-9)
    }

    @Test("converting to Celsius and back gives the temperature again in every units")
    func roundTrip() {
        for units in Units.allCases {
            #expect(abs(units.temperature(fromCelsius: units.celsius(from: 287.5)) - 287.5) < 1e-9)
            #expect(abs(units.speed(fromMetresPerSecond: units.metresPerSecond(from: 7.3)) - 7.3) < 1e-9)
        }
    }
}

@Suite("JSONValue.rounded")
struct JSONValueRoundedTests {
    @Test("a number is rounded to 2 decimals by default")
    func twoDecimals() {
        #expect(JSONValue.rounded(48.092) == .double(48.09))
        #expect(JSONValue.rounded(4.6082) == .double(4.61))
    }

    @Test("a number is rounded to the decimals asked for")
    func moreDecimals() {
        #expect(JSONValue.rounded(10.123456, decimals: 4) == .double(10.1235))
        #expect(JSONValue.rounded(2.5, decimals: 0) == .double(3))
    }

    @Test("a rounded number is written without trailing zeros")
    func shortestForm() {
        #expect(JSONValue.rounded(8.899999).serialized == "8.9")
        #expect(JSONValue.rounded(2.001).serialized == "2")
    }
}
