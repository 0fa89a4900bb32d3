extension WeatherProviderName {
    /// Whether it can serve with the keys found: OpenWeatherMap needs its key; Open-Meteo's free API
    /// needs none.
    public func canServe(with keys: ProviderKeys) -> Bool {
        switch self {
        case .openWeatherMap: keys.openWeatherMap != nil
        case .openMeteo: true
        }
    }
}
