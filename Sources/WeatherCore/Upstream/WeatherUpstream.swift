/// Fetches current weather from an upstream; the daemon's is OpenWeatherMap over libcurl.
public protocol WeatherUpstream: Sendable {
    /// - Throws: `UpstreamError`, or `CancellationError` when the task was cancelled.
    func fetch(_ query: LookupQuery) async throws -> WeatherObservation
}
