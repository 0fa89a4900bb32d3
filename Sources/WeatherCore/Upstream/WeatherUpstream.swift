/// Fetches current weather and forecasts from an upstream; the daemon's is OpenWeatherMap over libcurl.
public protocol WeatherUpstream: Sendable {
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetch(_ query: LookupQuery) async throws -> WeatherObservation

    /// The 5 day / 3 hour forecast for `query`.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetchForecast(_ query: LookupQuery) async throws -> WeatherForecast
}

extension WeatherUpstream {
    /// An upstream without forecasts: every forecast is unavailable.
    public func fetchForecast(_ query: LookupQuery) async throws -> WeatherForecast {
        throw UpstreamError.unavailable("this upstream has no forecasts")
    }
}
