/// The `[weather]` table: what every weather provider shares.
public struct WeatherConfig: Sendable, Equatable {
    /// `providers`: the providers in order of preference; a provider without its key is skipped.
    public var providers: [WeatherProviderName]
    /// `units`: units of the results.
    public var units: Units
    /// `lang`: language of the condition descriptions.
    public var lang: String
    /// `cache_ttl`: how long a lookup result is reused; zero means no cache.
    public var cacheTTL: Duration
    /// `geocode_ttl`: how long the places found for a name are kept (also across restarts, in
    /// `state.directory`).
    public var geocodeTTL: Duration

    /// The default `providers`: OpenWeatherMap, then Open-Meteo.
    public static let defaultProviders: [WeatherProviderName] = [.openWeatherMap, .openMeteo]

    /// The `[weather]` table; every value not given has its default.
    public init(
        providers: [WeatherProviderName] = WeatherConfig.defaultProviders,
        units: Units = .metric,
        lang: String = "en",
        cacheTTL: Duration = .seconds(600),
        geocodeTTL: Duration = .seconds(30 * 86_400)
    ) {
        self.providers = providers
        self.units = units
        self.lang = lang
        self.cacheTTL = cacheTTL
        self.geocodeTTL = geocodeTTL
    }
}
