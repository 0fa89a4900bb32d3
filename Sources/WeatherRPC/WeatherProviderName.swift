/// A weather provider weatherd can ask, by the name `weather.providers` gives it.
public enum WeatherProviderName: String, Sendable, Hashable, CaseIterable {
    /// OpenWeatherMap (`[openweathermap]`); it needs an API key.
    case openWeatherMap = "openweathermap"
    /// Open-Meteo.
    case openMeteo = "open-meteo"

    /// Its name in messages and logs.
    public var displayName: String {
        switch self {
        case .openWeatherMap: "OpenWeatherMap"
        case .openMeteo: "Open-Meteo"
        }
    }

}
