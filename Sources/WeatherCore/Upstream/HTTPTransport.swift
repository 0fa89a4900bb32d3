/// Performs HTTP GET requests. The daemon uses libcurl; tests substitute an in-memory transport.
///
/// Implementations reuse connections across requests and honour task cancellation.
public protocol HTTPTransport: Sendable {
    /// Fetches `url` and returns whatever response the server gave, whatever its status.
    /// - Throws: `HTTPTransportError` when no response was received, `CancellationError` when the
    ///   calling task was cancelled.
    func get(_ url: String, timeout: Duration) async throws -> HTTPResponse
}
