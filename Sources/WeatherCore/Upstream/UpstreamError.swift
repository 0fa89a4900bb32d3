/// Why the upstream gave no weather.
public enum UpstreamError: Error, Sendable, Equatable {
    case notFound(message: String?)
    case unauthorized
    /// HTTP 429; `retryAfter` from the `Retry-After` header when given.
    case rateLimited(retryAfter: Duration?)
    /// Network error, timeout, 5xx or an undecodable response.
    case unavailable(String)
}
