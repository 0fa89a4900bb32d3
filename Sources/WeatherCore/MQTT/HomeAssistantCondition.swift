/// Home Assistant's weather conditions for ours: the one table that maps them, for the forecasts
/// published to Home Assistant.
public enum HomeAssistantCondition {
    /// Our condition (OpenWeatherMap's group, which Open-Meteo's weather codes are mapped to, too),
    /// with the number of its icon where the group alone does not tell, and Home Assistant's
    /// condition. Rows with an icon come before the group's row without one.
    static let table: [(condition: String, icon: String?, homeAssistant: String)] = [
        ("Clear", nil, "sunny"),  // at night (an icon ending in n): clear-night
        ("Clouds", "02", "partlycloudy"),  // few clouds
        ("Clouds", "03", "partlycloudy"),  // scattered clouds
        ("Clouds", nil, "cloudy"),  // broken and overcast clouds (04)
        ("Drizzle", nil, "rainy"),
        ("Rain", "13", "snowy-rainy"),  // freezing rain
        ("Rain", nil, "rainy"),
        ("Snow", nil, "snowy"),
        ("Thunderstorm", nil, "lightning-rainy"),
        ("Mist", nil, "fog"),
        ("Fog", nil, "fog"),
        ("Haze", nil, "fog"),
        ("Smoke", nil, "fog"),
        ("Dust", nil, "exceptional"),
        ("Sand", nil, "exceptional"),
        ("Ash", nil, "exceptional"),
        ("Squall", nil, "windy"),
        ("Tornado", nil, "exceptional"),
    ]

    /// Home Assistant's condition for `condition` with `icon` (e.g. `Clouds`, `03d`); nil for a
    /// condition the table does not know, or none.
    public static func of(condition: String?, icon: String?) -> String? {
        guard let condition else { return nil }
        let number = icon.map { String($0.prefix(2)) }
        guard let row = table.first(where: { $0.condition == condition && ($0.icon == nil || $0.icon == number) }) else {
            return nil
        }
        let night = icon?.hasSuffix("n") == true
        return row.homeAssistant == "sunny" && night ? "clear-night" : row.homeAssistant
    }
}
