/// The `[open-meteo]` table: the Open-Meteo provider. Units, language and the cache time are shared
/// by every provider: ``WeatherConfig`` (`[weather]`).
///
/// Open-Meteo needs no key for its free, non-commercial API. A commercial subscription's key
/// (``ConfigLoader/findOpenMeteoKey(_:file:environment:readFile:)``) sends the requests to its
/// `customer-` hosts instead, when the URLs are the defaults.
public struct OpenMeteoConfig: Sendable, Equatable {
    /// The default `base_url`.
    public static let defaultBaseURL = "https://api.open-meteo.com"
    /// The default `geocoding_url`.
    public static let defaultGeocodingURL = "https://geocoding-api.open-meteo.com"

    /// `base_url`: weather and forecasts are asked at `{baseURL}/v1/forecast`.
    public var baseURL: String
    /// `geocoding_url`: names are resolved to places at `{geocodingURL}/v1/search`.
    public var geocodingURL: String
    /// `api_key_file`: a file holding a commercial subscription's key ("" = none); read after the
    /// systemd credential `open-meteo-api-key`.
    public var apiKeyFile: String
    /// `timeout`: time limit of one HTTP request.
    public var timeout: Duration
    /// `requests_per_minute`: the request budget per minute (the free API allows 600).
    public var requestsPerMinute: Int
    /// `requests_per_day`: the request budget per day (the free API allows 10,000).
    public var requestsPerDay: Int

    /// The `[open-meteo]` table; every value not given has its default.
    public init(
        baseURL: String = OpenMeteoConfig.defaultBaseURL,
        geocodingURL: String = OpenMeteoConfig.defaultGeocodingURL,
        apiKeyFile: String = "",
        timeout: Duration = .seconds(10),
        requestsPerMinute: Int = 600,
        requestsPerDay: Int = 10_000
    ) {
        self.baseURL = baseURL
        self.geocodingURL = geocodingURL
        self.apiKeyFile = apiKeyFile
        self.timeout = timeout
        self.requestsPerMinute = requestsPerMinute
        self.requestsPerDay = requestsPerDay
    }
}
