import Synchronization
import WeatherCore

/// Counters served at `GET /_stats`, so tests can check caching, single-flight and connection reuse.
final class ReplayStats: Sendable {
    private struct Counts {
        var requests = 0
        var connections = 0
        var deprecatedQ = 0
        var byQuery: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())

    /// Counts one API request under its normalized query (`q=london`, `lat=1&lon=2`,
    /// `forecast:q=paris`, `geo:q=london`); `deprecatedQ` for a weather or forecast request that
    /// carried `q=` (the daemon asks by `lat`/`lon` after geocoding).
    func recordRequest(_ key: String, deprecatedQ: Bool = false) {
        counts.withLock {
            $0.requests += 1
            if deprecatedQ { $0.deprecatedQ += 1 }
            $0.byQuery[key, default: 0] += 1
        }
    }

    func recordConnection() {
        counts.withLock { $0.connections += 1 }
    }

    /// `{"requests":N,"connections":M,"deprecated_q":D,"by_query":{...}}`, keys sorted.
    var json: JSONValue {
        counts.withLock { counts in
            var byQuery = JSONObject()
            for (key, count) in counts.byQuery.sorted(by: { $0.key < $1.key }) {
                byQuery[key] = .integer(Int64(count))
            }
            return .object([
                "requests": .integer(Int64(counts.requests)),
                "connections": .integer(Int64(counts.connections)),
                "deprecated_q": .integer(Int64(counts.deprecatedQ)),
                "by_query": .object(byQuery),
            ])
        }
    }
}
