import Testing

@testable import WeatherCore

@Suite("WMO weather codes: OpenWeatherMap's conditions, descriptions and icons")
struct WMOWeatherCodeTests {
    /// Every code with its condition group, description and icon, as written in the contract.
    static let table: [(code: Int, condition: String, description: String, icon: String)] = [
        (0, "Clear", "clear sky", "01"),
        (1, "Clouds", "mainly clear", "02"),
        (2, "Clouds", "partly cloudy", "03"),
        (3, "Clouds", "overcast", "04"),
        (45, "Fog", "fog", "50"),
        (48, "Fog", "depositing rime fog", "50"),
        (51, "Drizzle", "light drizzle", "09"),
        (53, "Drizzle", "moderate drizzle", "09"),
        (55, "Drizzle", "dense drizzle", "09"),
        (56, "Drizzle", "light freezing drizzle", "09"),
        (57, "Drizzle", "dense freezing drizzle", "09"),
        (61, "Rain", "light rain", "10"),
        (63, "Rain", "moderate rain", "10"),
        (65, "Rain", "heavy rain", "10"),
        (66, "Rain", "light freezing rain", "13"),
        (67, "Rain", "heavy freezing rain", "13"),
        (71, "Snow", "light snow", "13"),
        (73, "Snow", "moderate snow", "13"),
        (75, "Snow", "heavy snow", "13"),
        (77, "Snow", "snow grains", "13"),
        (80, "Rain", "light rain showers", "09"),
        (81, "Rain", "moderate rain showers", "09"),
        (82, "Rain", "violent rain showers", "09"),
        (85, "Snow", "light snow showers", "13"),
        (86, "Snow", "heavy snow showers", "13"),
        (95, "Thunderstorm", "thunderstorm", "11"),
        (96, "Thunderstorm", "thunderstorm with light hail", "11"),
        (99, "Thunderstorm", "thunderstorm with heavy hail", "11"),
    ]

    @Test("each code by day and by night: condition, description, icon with d or n, and a symbol")
    func everyCode() throws {
        for entry in Self.table {
            let code = try #require(WMOWeatherCode(entry.code), "code \(entry.code)")
            #expect(code.code == entry.code)
            #expect(code.condition == entry.condition, "code \(entry.code)")
            #expect(code.description == entry.description, "code \(entry.code)")
            #expect(code.icon(isDay: true) == entry.icon + "d", "code \(entry.code)")
            #expect(code.icon(isDay: false) == entry.icon + "n", "code \(entry.code)")
            #expect(WeatherSymbol.glyph(forIcon: code.icon(isDay: true)) != nil, "code \(entry.code)")
            #expect(WeatherSymbol.glyph(forIcon: code.icon(isDay: false)) != nil, "code \(entry.code)")
        }
        #expect(WMOWeatherCode.codes == Self.table.map(\.code), "no code beyond the contract's")
    }

    @Test("a clear night is the moon, a clear day the sun")
    func clearDayAndNight() throws {
        let clear = try #require(WMOWeatherCode(0))
        #expect(WeatherSymbol.glyph(forIcon: clear.icon(isDay: true)) == "☀")
        #expect(WeatherSymbol.glyph(forIcon: clear.icon(isDay: false)) == "☾")
    }

    @Test("an unknown code has no entry", arguments: [-1, 4, 44, 50, 60, 100, 1000])
    func unknown(_ code: Int) {
        #expect(WMOWeatherCode(code) == nil)
    }
}
