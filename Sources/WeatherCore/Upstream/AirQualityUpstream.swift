/// An air quality API: the air quality at several points in one request. The daemon's is
/// Open-Meteo's (``OpenMeteoAirQualityClient``); tests substitute in-memory ones. ``LookupService``
/// asks it beside the weather, caches its answers and counts its requests.
public protocol AirQualityUpstream: Sendable {
    /// The budget its requests are counted in (Open-Meteo's, whatever provides the weather).
    var provider: WeatherProviderName { get }

    /// The most points one request asks for.
    var maxPointsPerRequest: Int { get }

    /// The air quality at each of `coordinates` (at most ``maxPointsPerRequest``), in the order
    /// asked, in one request.
    /// - Throws: `UpstreamError` (for all of them), or `CancellationError`.
    func airQuality(at coordinates: [Coordinate]) async throws -> [AirQuality]
}
