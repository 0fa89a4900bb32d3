/// A weather provider's API: places for a name, and the current weather and the forecast at a point.
/// The daemon's are OpenWeatherMap and Open-Meteo over libcurl; tests substitute in-memory ones.
///
/// Weather is only ever asked by coordinates: a name is first resolved to places here, and the
/// search stream never sees which provider or which request did it. ``LookupService`` picks the
/// provider of each lookup (failover, budgets); a provider only speaks its API.
public protocol WeatherUpstream: Sendable {
    /// Which provider this is; it names the answers (`provider`) and the metrics.
    var provider: WeatherProviderName { get }

    /// The most points whose current weather one request can ask (1: one request per point).
    var maxPointsPerRequest: Int { get }

    /// Whether its latest answer came from a stand-in that marked it as sample data (not real
    /// weather): `state.providers[].sample_data`.
    var servesSampleData: Bool { get }

    /// The places `query` names, best first, at most `limit`; empty when the name is unknown.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place]

    /// The current weather at `coordinate`.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetch(at coordinate: Coordinate) async throws -> WeatherObservation

    /// The current weather at each of `coordinates` (at most ``maxPointsPerRequest``) in one
    /// request, in the order asked.
    /// - Throws: `UpstreamError` (for all of them), or `CancellationError`.
    func fetch(at coordinates: [Coordinate]) async throws -> [WeatherObservation]

    /// The forecast at `coordinate`.
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast
}

extension WeatherUpstream {
    /// One point per request.
    public var maxPointsPerRequest: Int { 1 }

    /// Real weather.
    public var servesSampleData: Bool { false }

    /// One request per point, one after the other (a provider with a list form overrides this).
    public func fetch(at coordinates: [Coordinate]) async throws -> [WeatherObservation] {
        var observations: [WeatherObservation] = []
        for coordinate in coordinates { observations.append(try await fetch(at: coordinate)) }
        return observations
    }

    /// An upstream without forecasts: every forecast is unavailable.
    public func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        throw UpstreamError.unavailable("this upstream has no forecasts")
    }
}
