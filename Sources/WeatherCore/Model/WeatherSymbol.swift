/// One Unicode glyph for each OpenWeatherMap icon code (`properties.symbol`).
public enum WeatherSymbol {
    /// The glyph for an icon code such as `04n`; nil for a code OpenWeatherMap does not define.
    public static func glyph(forIcon icon: String) -> String? {
        let code = icon.prefix(2)
        let night = icon.hasSuffix("n")
        switch code {
        case "01": return night ? "☾" : "☀"
        case "02": return "⛅"
        case "03", "04": return "☁"
        case "09": return "🌧"
        case "10": return night ? "🌧" : "🌦"
        case "11": return "⛈"
        case "13": return "❄"
        case "50": return "🌫"
        default: return nil
        }
    }
}
