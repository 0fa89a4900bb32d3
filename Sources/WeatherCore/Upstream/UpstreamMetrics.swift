import CoreMetrics

/// The counters of the upstream and the lookups, through swift-metrics: whatever metrics backend the
/// process bootstrapped (Prometheus in the daemon) gets them; without one they cost nothing.
enum UpstreamMetrics {
    /// One HTTP request to a provider and how it ended: `ok`, `not_found`, `unauthorized`,
    /// `rate_limited` or `unavailable` (network, timeout, 5xx, undecodable).
    static func request(provider: WeatherProviderName, endpoint: String, outcome: String, duration: Duration) {
        request(provider: provider.rawValue, endpoint: endpoint, outcome: outcome, duration: duration)
    }

    /// The same for any provider by its name (an alert provider: `nws`).
    static func request(provider: String, endpoint: String, outcome: String, duration: Duration) {
        Counter(
            label: "weatherd_upstream_requests_total",
            dimensions: [("endpoint", endpoint), ("outcome", outcome), ("provider", provider)]
        ).increment()
        CoreMetrics.Timer(
            label: "weatherd_upstream_request_duration_seconds",
            dimensions: [("endpoint", endpoint), ("provider", provider)]
        )
        .recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Where a lookup's answer came from.
    enum LookupResult {
        case cache, shared, upstream
    }

    /// One lookup and where its answer came from: `cache`, `shared` (an identical lookup in flight)
    /// or `upstream`.
    static func lookup(_ result: LookupResult) {
        switch result {
        case .cache: cacheLookups.increment()
        case .shared: sharedLookups.increment()
        case .upstream: upstreamLookups.increment()
        }
    }

    // Made once, at the first lookup (the daemon bootstraps its metrics backend before any):
    // making a counter looks it up in the registry by name and labels, 1% of a cached search.
    private static let cacheLookups = Counter(label: "weatherd_lookups_total", dimensions: [("result", "cache")])
    private static let sharedLookups = Counter(label: "weatherd_lookups_total", dimensions: [("result", "shared")])
    private static let upstreamLookups = Counter(label: "weatherd_lookups_total", dimensions: [("result", "upstream")])
}

extension UpstreamError {
    /// The outcome label of a failed request.
    var metricOutcome: String {
        switch self {
        case .notFound: "not_found"
        case .unauthorized: "unauthorized"
        case .rateLimited: "rate_limited"
        case .unavailable: "unavailable"
        }
    }
}
