/// A weather provider's API: places for a name, and the current weather and the forecast at a point.
/// The daemon's is OpenWeatherMap over libcurl; tests substitute in-memory ones.
///
/// Weather is only ever asked by coordinates: a name is first resolved to places here, and the
/// search stream never sees which provider or which request did it.
public protocol WeatherUpstream: Sendable {
    /// The places `query` names, best first, at most `limit`; empty when the name is unknown.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place]

    /// The current weather at `coordinate`.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetch(at coordinate: Coordinate) async throws -> WeatherObservation

    /// The forecast at `coordinate`.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast
}

extension WeatherUpstream {
    /// An upstream without forecasts: every forecast is unavailable.
    public func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        throw UpstreamError.unavailable("this upstream has no forecasts")
    }
}
