/// The `[openweathermap]` table: the OpenWeatherMap provider. Units, language and the cache time are
/// shared by every provider: ``WeatherConfig`` (`[weather]`).
public struct OpenWeatherMapConfig: Sendable, Equatable {
    /// `base_url`: requests go to `{baseURL}/data/2.5/weather`.
    public var baseURL: String
    /// `api_key_file`: a file holding the API key (third in the order of ``ConfigLoader/resolveAPIKey(_:file:environment:readFile:)``).
    public var apiKeyFile: String
    /// `api_key`: the API key written in the configuration itself (last in the order of resolution).
    public var apiKey: Secret?
    /// `timeout`: time limit of one HTTP request.
    public var timeout: Duration
    /// `requests_per_minute`: the request budget.
    public var requestsPerMinute: Int

    /// The `[openweathermap]` table; every value not given has its default.
    public init(
        baseURL: String = "https://api.openweathermap.org",
        apiKeyFile: String = "/etc/weatherd/owm-api-key",
        apiKey: Secret? = nil,
        timeout: Duration = .seconds(10),
        requestsPerMinute: Int = 60
    ) {
        self.baseURL = baseURL
        self.apiKeyFile = apiKeyFile
        self.apiKey = apiKey
        self.timeout = timeout
        self.requestsPerMinute = requestsPerMinute
    }
}
