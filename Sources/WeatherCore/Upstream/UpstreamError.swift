/// Why the upstream gave no weather.
public enum UpstreamError: Error, Sendable, Equatable {
    case notFound(message: String?)
    case unauthorized
    /// HTTP 429; `retryAfter` from the `Retry-After` header when given.
    case rateLimited(retryAfter: Duration?)
    /// Network error, timeout, 5xx or an undecodable response.
    case unavailable(String)
}

extension UpstreamError {
    /// What went wrong, for `state.providers` and the log: the provider's own words where it gave
    /// some (they name it already).
    var reason: String {
        switch self {
        case .notFound(let message): message ?? "not found"
        case .unauthorized: "the API key was rejected"
        case .rateLimited: "rate limit reached (HTTP 429)"
        case .unavailable(let message): message
        }
    }
}
