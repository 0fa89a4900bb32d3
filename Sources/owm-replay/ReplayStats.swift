import Synchronization
import WeatherCore

/// Counters served at `GET /_stats`, so tests can check caching, single-flight and connection reuse:
/// OpenWeatherMap's at the top (as they always were), Open-Meteo's in `open_meteo`.
final class ReplayStats: Sendable {
    private struct Counts {
        var requests = 0
        var connections = 0
        var deprecatedQ = 0
        var wrongKey = 0
        var byQuery: [String: Int] = [:]
        var openMeteo = OpenMeteoCounts()
    }

    private struct OpenMeteoCounts {
        var forecastRequests = 0
        var forecastPoints = 0
        var searchRequests = 0
        var airQualityRequests = 0
        var airQualityPoints = 0
        var wrongKey = 0
        var byQuery: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())

    /// Counts one OpenWeatherMap request under its normalized query (`q=london`, `lat=1&lon=2`,
    /// `forecast:q=paris`, `geo:q=london`); `deprecatedQ` for a weather or forecast request that
    /// carried `q=` (the daemon asks by `lat`/`lon` after geocoding).
    func recordRequest(_ key: String, deprecatedQ: Bool = false) {
        counts.withLock {
            $0.requests += 1
            if deprecatedQ { $0.deprecatedQ += 1 }
            $0.byQuery[key, default: 0] += 1
        }
    }

    /// Counts one Open-Meteo forecast request asking for `points` (each by its key, `lat=1&lon=2`;
    /// none when its coordinates are not valid).
    func recordOpenMeteoForecast(points: [String]) {
        counts.withLock {
            $0.openMeteo.forecastRequests += 1
            $0.openMeteo.forecastPoints += points.count
            for point in points { $0.openMeteo.byQuery[point, default: 0] += 1 }
        }
    }

    /// Counts one request of Open-Meteo's air quality API asking for `points` points.
    func recordAirQuality(points: Int) {
        counts.withLock {
            $0.openMeteo.airQualityRequests += 1
            $0.openMeteo.airQualityPoints += points
        }
    }

    /// Counts one Open-Meteo geocoding request under its key (`search:name=london`).
    func recordOpenMeteoSearch(_ key: String) {
        counts.withLock {
            $0.openMeteo.searchRequests += 1
            $0.openMeteo.byQuery[key, default: 0] += 1
        }
    }

    /// Counts one request refused for its key (`--api-key`, `--open-meteo-api-key`): a client that
    /// sent another key than the account's (a fleet's proxy that let a device's placeholder through).
    func recordWrongKey(_ service: WeatherProviderName) {
        counts.withLock {
            switch service {
            case .openWeatherMap: $0.wrongKey += 1
            case .openMeteo: $0.openMeteo.wrongKey += 1
            }
        }
    }

    func recordConnection() {
        counts.withLock { $0.connections += 1 }
    }

    /// `{"requests":N,"connections":M,"deprecated_q":D,"wrong_key":K,"by_query":{...},"open_meteo":{"requests":R,
    /// "forecast_requests":F,"forecast_points":P,"search_requests":S,"air_quality_requests":A,
    /// "air_quality_points":Q,"wrong_key":K,"by_query":{...}}}`,
    /// keys of `by_query` sorted.
    var json: JSONValue {
        counts.withLock { counts in
            let meteo = counts.openMeteo
            return .object([
                "requests": .integer(Int64(counts.requests)),
                "connections": .integer(Int64(counts.connections)),
                "deprecated_q": .integer(Int64(counts.deprecatedQ)),
                "wrong_key": .integer(Int64(counts.wrongKey)),
                "by_query": Self.sorted(counts.byQuery),
                "open_meteo": .object([
                    "requests": .integer(Int64(meteo.forecastRequests + meteo.searchRequests)),
                    "forecast_requests": .integer(Int64(meteo.forecastRequests)),
                    "forecast_points": .integer(Int64(meteo.forecastPoints)),
                    "search_requests": .integer(Int64(meteo.searchRequests)),
                    "air_quality_requests": .integer(Int64(meteo.airQualityRequests)),
                    "air_quality_points": .integer(Int64(meteo.airQualityPoints)),
                    "wrong_key": .integer(Int64(meteo.wrongKey)),
                    "by_query": Self.sorted(meteo.byQuery),
                ]),
            ])
        }
    }

    private static func sorted(_ counts: [String: Int]) -> JSONValue {
        var object = JSONObject()
        for (key, count) in counts.sorted(by: { $0.key < $1.key }) {
            object[key] = .integer(Int64(count))
        }
        return .object(object)
    }
}
