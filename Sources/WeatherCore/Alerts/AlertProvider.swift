/// A source of official alerts for the places it covers: the seam behind which the NWS sits, and
/// MeteoAlarm or DWD could follow. Its requests go through an ``HTTPTransport``.
public protocol AlertProvider: Sendable {
    /// Its name (`alerts.providers`, `state.services`, `error.data.provider`).
    var name: AlertProviderName { get }

    /// Whether it may have alerts at `point`, decided without asking (a bundled outline of its area).
    func covers(_ point: Coordinate) -> Bool

    /// The alerts in force at `cell` (a point rounded to 2 decimals), most severe first.
    /// - Throws: ``UpstreamError``: `notFound` when the provider says the point is outside its area,
    ///   else `rateLimited` or `unavailable`; `CancellationError` when cancelled.
    func alerts(at cell: Coordinate) async throws -> [Alert]

    /// The shape of a zone an alert names (an entry of ``Alert/zones``); nil when it has none.
    /// - Throws: like ``alerts(at:)``.
    func zoneArea(_ zone: String) async throws -> AlertArea?
}
