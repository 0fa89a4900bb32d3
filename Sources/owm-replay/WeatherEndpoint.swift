import Foundation
import WeatherCore

/// The behaviour of `GET /data/2.5/weather` and `GET /_stats`: lookup, unit conversion, the API key
/// check and the `--delay` / `--fail` rules.
struct WeatherEndpoint: Sendable {
    let catalog: WeatherCatalog
    let apiKey: String?
    let delays: [DelayRule]
    let failures: [FailRule]
    let retryAfter: Int?
    let stats: ReplayStats

    /// What a weather request asked for, resolved against the recorded data.
    private enum Lookup {
        case city(CityQuery, RecordedWeather?)
        case point(RecordedWeather)
        case invalid(ReplayResponse)

        /// The cities a `--delay` / `--fail` rule may name to cover this request.
        var cities: [(name: String, country: String?)] {
            switch self {
            case .city(let query, let found):
                var cities = [(query.name, query.country)]
                if let found { cities.append((found.name, found.country)) }
                return cities
            case .point(let found): return found.name.isEmpty ? [] : [(found.name, found.country)]
            case .invalid: return []
            }
        }
    }

    func respond(method: String, target: RequestTarget) async -> ReplayResponse {
        switch target.path {
        case "/data/2.5/weather", "/data/2.5/weather/":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return await weather(target)
        case "/_stats":
            return .json(200, stats.json.serialized)
        default:
            return .notFound
        }
    }

    private func weather(_ target: RequestTarget) async -> ReplayResponse {
        let units = Units(query: target["units"])
        let (key, lookup) = resolve(target, units: units)
        stats.recordRequest(key)

        let cities = lookup.cities
        if let delay = mostSpecific(delays, { $0.pattern }, matching: cities), delay.milliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(delay.milliseconds))
        }
        if let apiKey, target["appid"] != apiKey {
            return .invalidAPIKey
        }
        if let failure = mostSpecific(failures, { $0.pattern }, matching: cities) {
            return .failure(failure.outcome, retryAfter: retryAfter)
        }
        switch lookup {
        case .city(_, let found?), .point(let found):
            return .weather(found.body(in: units))
        case .city(_, nil):
            return .cityNotFound
        case .invalid(let response):
            return response
        }
    }

    /// The last rule naming one of `cities`, else the last `*` rule.
    private func mostSpecific<Rule>(
        _ rules: [Rule],
        _ pattern: (Rule) -> CityPattern,
        matching cities: [(name: String, country: String?)]
    ) -> Rule? {
        rules.last { pattern($0).city != nil && pattern($0).matches(cities) }
            ?? rules.last { pattern($0).city == nil }
    }

    /// The `/_stats` key of the request and what it resolves to.
    private func resolve(_ target: RequestTarget, units: Units) -> (String, Lookup) {
        if let q = target["q"] {
            let query = CityQuery(q)
            guard !query.name.isEmpty else { return ("q=", .invalid(.nothingToGeocode)) }
            return (query.statsKey, .city(query, catalog.city(matching: query, preferring: units)))
        }
        let latText = target["lat"] ?? ""
        let lonText = target["lon"] ?? ""
        if target["lat"] == nil, target["lon"] == nil {
            return ("", .invalid(.nothingToGeocode))
        }
        let lat = parseCoordinate(latText, limit: 90)
        let lon = parseCoordinate(lonText, limit: 180)
        let key = "lat=\(lat.map { formatDecimal($0, decimals: 4) } ?? latText)"
            + "&lon=\(lon.map { formatDecimal($0, decimals: 4) } ?? lonText)"
        guard let lat else { return (key, .invalid(.wrongLatitude)) }
        guard let lon else { return (key, .invalid(.wrongLongitude)) }
        let found = catalog.city(near: lat, lon) ?? SynthesizedWeather.weather(latitude: lat, longitude: lon)
        return (key, .point(found))
    }

    private func parseCoordinate(_ text: String, limit: Double) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ "+-.0123456789eE".contains($0) }),
              let value = Double(text), value.isFinite, abs(value) <= limit else { return nil }
        return value
    }
}

/// Formats `value` with at most `decimals` fraction digits, dropping trailing zeros (`8.90` → `8.9`).
private func formatDecimal(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * scale).rounded()
    let negative = scaled < 0
    let magnitude = Int64(abs(scaled))
    let divisor = Int64(scale)
    let whole = magnitude / divisor
    var fraction = String(magnitude % divisor)
    fraction = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
    while fraction.last == "0" { fraction.removeLast() }
    let sign = negative && magnitude != 0 ? "-" : ""
    return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
}
