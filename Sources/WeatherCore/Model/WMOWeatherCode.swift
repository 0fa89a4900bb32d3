/// The WMO weather interpretation codes (WMO 4677, as Open-Meteo's `weather_code` gives them) in
/// OpenWeatherMap's terms: its condition groups, an English description and its icon codes, so a
/// client needs one icon set and one list of conditions whoever answered.
///
/// This is the one table of them: weather and forecasts from Open-Meteo take their `condition`,
/// `description` and `icon` from here (and `symbol` follows from the icon, ``WeatherSymbol``).
/// The descriptions are English whatever `weather.lang` is.
public struct WMOWeatherCode: Sendable, Hashable {
    /// The WMO code, e.g. `61`.
    public let code: Int
    /// OpenWeatherMap's condition group: `Clear`, `Clouds`, `Fog`, `Drizzle`, `Rain`, `Snow` or
    /// `Thunderstorm`.
    public let condition: String
    /// The description, lower case, e.g. `light rain`.
    public let description: String
    /// OpenWeatherMap's icon code without its day/night letter, e.g. `10`.
    public let iconBase: String

    /// The entry of `code`; nil for a code the table does not know.
    public init?(_ code: Int) {
        guard let entry = Self.table[code] else { return nil }
        self = entry
    }

    private init(_ code: Int, _ condition: String, _ description: String, _ iconBase: String) {
        self.code = code
        self.condition = condition
        self.description = description
        self.iconBase = iconBase
    }

    /// The icon code, `10d` by day and `10n` by night (Open-Meteo's `is_day`).
    public func icon(isDay: Bool) -> String {
        iconBase + (isDay ? "d" : "n")
    }

    /// Every code the table knows, in ascending order.
    public static var codes: [Int] { table.keys.sorted() }

    private static let table: [Int: WMOWeatherCode] = Dictionary(
        uniqueKeysWithValues: [
            WMOWeatherCode(0, "Clear", "clear sky", "01"),
            WMOWeatherCode(1, "Clouds", "mainly clear", "02"),
            WMOWeatherCode(2, "Clouds", "partly cloudy", "03"),
            WMOWeatherCode(3, "Clouds", "overcast", "04"),
            WMOWeatherCode(45, "Fog", "fog", "50"),
            WMOWeatherCode(48, "Fog", "depositing rime fog", "50"),
            WMOWeatherCode(51, "Drizzle", "light drizzle", "09"),
            WMOWeatherCode(53, "Drizzle", "moderate drizzle", "09"),
            WMOWeatherCode(55, "Drizzle", "dense drizzle", "09"),
            WMOWeatherCode(56, "Drizzle", "light freezing drizzle", "09"),
            WMOWeatherCode(57, "Drizzle", "dense freezing drizzle", "09"),
            WMOWeatherCode(61, "Rain", "light rain", "10"),
            WMOWeatherCode(63, "Rain", "moderate rain", "10"),
            WMOWeatherCode(65, "Rain", "heavy rain", "10"),
            // OpenWeatherMap's "freezing rain" (511) is in its Rain group with the snow icon.
            WMOWeatherCode(66, "Rain", "light freezing rain", "13"),
            WMOWeatherCode(67, "Rain", "heavy freezing rain", "13"),
            WMOWeatherCode(71, "Snow", "light snow", "13"),
            WMOWeatherCode(73, "Snow", "moderate snow", "13"),
            WMOWeatherCode(75, "Snow", "heavy snow", "13"),
            WMOWeatherCode(77, "Snow", "snow grains", "13"),
            WMOWeatherCode(80, "Rain", "light rain showers", "09"),
            WMOWeatherCode(81, "Rain", "moderate rain showers", "09"),
            WMOWeatherCode(82, "Rain", "violent rain showers", "09"),
            WMOWeatherCode(85, "Snow", "light snow showers", "13"),
            WMOWeatherCode(86, "Snow", "heavy snow showers", "13"),
            WMOWeatherCode(95, "Thunderstorm", "thunderstorm", "11"),
            WMOWeatherCode(96, "Thunderstorm", "thunderstorm with light hail", "11"),
            WMOWeatherCode(99, "Thunderstorm", "thunderstorm with heavy hail", "11"),
        ].map { ($0.code, $0) })
}
