/// The `[air-quality]` table: air quality from Open-Meteo's air quality API (CAMS data; no key for
/// the free API), asked together with the weather and counted in Open-Meteo's budget.
public struct AirQualityConfig: Sendable, Equatable {
    /// The default `base_url`.
    public static let defaultBaseURL = "https://air-quality-api.open-meteo.com"

    /// `enabled`: whether features carry air quality (false: `air_quality` is null, nothing is asked).
    public var enabled: Bool
    /// `base_url`: air quality is asked at `{baseURL}/v1/air-quality`.
    public var baseURL: String
    /// `scale`: the index shown (bands, `{aqi}`, `data-aqi`, Home Assistant); a feature carries both.
    public var scale: AirQualityScale
    /// `timeout`: time limit of one HTTP request.
    public var timeout: Duration

    /// The `[air-quality]` table; every value not given has its default.
    public init(
        enabled: Bool = true, baseURL: String = AirQualityConfig.defaultBaseURL, scale: AirQualityScale = .european,
        timeout: Duration = .seconds(5)
    ) {
        self.enabled = enabled
        self.baseURL = baseURL
        self.scale = scale
        self.timeout = timeout
    }
}
