/// The keys found for the providers: OpenWeatherMap's (without it OpenWeatherMap is skipped) and
/// Open-Meteo's commercial key (without it Open-Meteo's free, non-commercial API is asked).
public struct ProviderKeys: Sendable, Equatable {
    public var openWeatherMap: Secret?
    public var openMeteo: Secret?

    public init(openWeatherMap: Secret? = nil, openMeteo: Secret? = nil) {
        self.openWeatherMap = openWeatherMap
        self.openMeteo = openMeteo
    }
}
