import Foundation
import WeatherCore

/// The behaviour of OpenWeatherMap's `GET /data/2.5/weather`, `GET /data/2.5/forecast` and
/// `GET /geo/1.0/direct`, of Open-Meteo's `GET /v1/forecast` and `GET /v1/search`
/// (`OpenMeteoEndpoint.swift`) and `GET /v1/air-quality` (`OpenMeteoAirQuality.swift`), and of `GET /_stats` and `/_faults`: lookup, unit conversion, the API
/// key checks, the `--delay` / `--fail` rules and the faults set at run time (the same for every API).
struct WeatherEndpoint: Sendable {
    let catalog: WeatherCatalog
    /// The `appid` OpenWeatherMap's paths take; nil: any.
    let apiKey: String?
    let delays: [DelayRule]
    let failures: [FailRule]
    let retryAfter: Int?
    let stats: ReplayStats
    var faults = FaultBoard()
    /// The NWS's alerts and zones (`NWSEndpoint.swift`).
    var nws = NWSEndpoint(recordings: [])
    /// The `apikey` Open-Meteo's paths take; nil: any, or none.
    var openMeteoAPIKey: String?
    /// The present, for the times of synthesized answers.
    var now: @Sendable () -> Date = { Date() }
    /// `--shift-times`: recorded answers with their times moved to `now`, recorded forecasts completed
    /// with synthesized steps (`TimeShift`).
    var shiftTimes = false
    /// `--mark-sample`: every answer of the two services' paths carries `Sample-Data: owm-replay`, so
    /// a client can tell that this is not real weather.
    var markSample = false

    /// The header `--mark-sample` adds.
    static let sampleHeader = (name: "Sample-Data", value: "owm-replay")

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

    /// The answer to one request. `clientGone` opens when the client closed its connection: a
    /// request hanging on a fault is abandoned then.
    func respond(method: String, target: RequestTarget, clientGone: Gate? = nil) async -> ReplayResponse {
        var response = await answer(method: method, target: target, clientGone: clientGone)
        if markSample,
            ["/data/", "/geo/", "/v1/", "/alerts/", "/zones/"].contains(where: target.path.hasPrefix)
        {
            response.extraHeaders.append(Self.sampleHeader)
        }
        return response
    }

    private func answer(method: String, target: RequestTarget, clientGone: Gate?) async -> ReplayResponse {
        if let answer = nws.respond(method: method, target: target, now: now(), shiftTimes: shiftTimes) { return answer }
        switch target.path {
        case "/data/2.5/weather", "/data/2.5/weather/":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return await weather(target, resource: .weather, clientGone: clientGone)
        case "/data/2.5/forecast", "/data/2.5/forecast/":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return await weather(target, resource: .forecast, clientGone: clientGone)
        case "/geo/1.0/direct", "/geo/1.0/direct/":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return await geocode(target, clientGone: clientGone)
        case "/v1/forecast", "/v1/forecast/":
            guard method == "GET" || method == "HEAD" else { return .openMeteoMethodNotAllowed }
            return await openMeteoForecast(target, clientGone: clientGone)
        case "/v1/search", "/v1/search/":
            guard method == "GET" || method == "HEAD" else { return .openMeteoMethodNotAllowed }
            return await openMeteoSearch(target, clientGone: clientGone)
        case "/v1/air-quality", "/v1/air-quality/":
            guard method == "GET" || method == "HEAD" else { return .openMeteoMethodNotAllowed }
            return await openMeteoAirQuality(target, clientGone: clientGone)
        case let path where path.hasPrefix("/v1/"):
            return .openMeteoNotFound
        case "/_stats":
            return .json(200, stats.json.serialized)
        case "/_faults", "/_faults/":
            return faultControl(method: method, target: target)
        default:
            return .notFound
        }
    }

    /// `GET /_faults` lists the faults; `POST /_faults?city=CITY[&service=SERVICE]&fault=…` sets the
    /// fault of CITY (a name, `Name,CC` or `*`) for SERVICE (`openweathermap` or `open-meteo`;
    /// absent or `*`: both), replacing the one it had; `DELETE /_faults?city=CITY` clears the faults
    /// of CITY, `DELETE /_faults?service=SERVICE` those for SERVICE (`*`: those for both), both
    /// together those of CITY for SERVICE, `DELETE /_faults` all. Each answers the list as it is then.
    private func faultControl(method: String, target: RequestTarget) -> ReplayResponse {
        let service: WeatherProviderName??
        do {
            service = try target["service"].map(Self.faultService)
        } catch {
            return .badFaultRequest(error)
        }
        switch method {
        case "GET", "HEAD":
            break
        case "POST", "PUT":
            guard let city = target["city"], !city.trimmingCharacters(in: .whitespaces).isEmpty else {
                return .badFaultRequest(FaultError("city= is missing: a city name, Name,CC, or * for all"))
            }
            do {
                faults.set(try Fault(parameters: target), for: CityPattern(city), service: service ?? nil)
            } catch {
                return .badFaultRequest(error)
            }
        case "DELETE":
            if let unknown = target.parameters.first(where: { $0.name != "city" && $0.name != "service" }) {
                return .badFaultRequest(FaultError("\(unknown.name)= does not go with DELETE: only city= and service="))
            }
            faults.clear(target["city"].map(CityPattern.init), services: service.map { .only($0) } ?? .any)
        default:
            return .methodNotAllowed
        }
        return .json(200, faults.json.serialized)
    }

    /// The `service=` of `/_faults`: `openweathermap`, `open-meteo`, or `*` (nil: both).
    private static func faultService(_ text: String) throws(FaultError) -> WeatherProviderName? {
        if text.trimmingCharacters(in: .whitespaces) == "*" { return nil }
        guard let service = WeatherProviderName(serviceName: text) else {
            throw FaultError("unknown service \(text): \(WeatherProviderName.serviceNames), or * for both")
        }
        return service
    }

    /// The two APIs it answers.
    enum Resource: Sendable {
        case weather
        case forecast
    }

    private func weather(_ target: RequestTarget, resource: Resource, clientGone: Gate?) async -> ReplayResponse {
        let units = Units(query: target["units"])
        let (key, lookup) = resolve(target, units: units)
        stats.recordRequest(resource == .forecast ? "forecast:" + key : key, deprecatedQ: target["q"] != nil)
        return await guarded(target, service: .openWeatherMap, cities: lookup.cities, clientGone: clientGone) {
            answer(lookup, resource: resource, units: units)
        }
    }

    /// `GET /geo/1.0/direct?q=Name[,ST][,CC][&limit=N]`: the known places `q` names, best first, at
    /// most `limit` (1...5, default 5; above 5 is taken as 5), as a JSON array (`[]` when there are
    /// none). The rules and faults naming the query's city apply.
    private func geocode(_ target: RequestTarget, clientGone: Gate?) async -> ReplayResponse {
        let query = CityQuery(target["q"] ?? "")
        stats.recordRequest("geo:" + query.geocodingStatsKey)
        let cities = query.name.isEmpty ? [] : [(name: query.name, country: query.country)]
        return await guarded(target, service: .openWeatherMap, cities: cities, clientGone: clientGone) {
            guard !query.name.isEmpty else { return .nothingToGeocode }
            guard let limit = Self.geocodingLimit(target["limit"]) else { return .wrongLimit }
            return .json(200, JSONValue.array(catalog.places(matching: query).prefix(limit).map(\.json)).serialized)
        }
    }

    /// The `limit` of a geocoding request: absent, 5; a whole number above 5, 5 (OpenWeatherMap's
    /// cap); below 1 or not a whole number, nil (a 400).
    static func geocodingLimit(_ text: String?) -> Int? {
        guard let text else { return 5 }
        guard let limit = Int(text.trimmingCharacters(in: .whitespaces)), limit >= 1 else { return nil }
        return min(limit, 5)
    }

    /// What every API request goes through, for a request to `service` that asked for or resolved to
    /// `cities`: the `--delay`, the API key check, the faults set at run time, the `--fail` rules;
    /// then `answer`.
    func guarded(
        _ target: RequestTarget, service: WeatherProviderName, cities: [(name: String, country: String?)],
        clientGone: Gate?, answer: () -> ReplayResponse
    ) async -> ReplayResponse {
        if let delay = bestRule(delays, pattern: \.pattern, service: \.service, request: service, cities: cities),
            delay.milliseconds > 0
        {
            try? await Task.sleep(for: .milliseconds(delay.milliseconds))
        }
        switch service {
        case .openWeatherMap:
            if let apiKey, target["appid"] != apiKey {
                stats.recordWrongKey(service)
                return .invalidAPIKey
            }
        case .openMeteo:
            if let openMeteoAPIKey, target["apikey"] != openMeteoAPIKey {
                stats.recordWrongKey(service)
                return .openMeteoInvalidAPIKey
            }
        }
        var drip: Int?
        while let rule = faults.rule(for: service, matching: cities) {
            switch rule.fault {
            case .status(let status, let retryAfter):
                return .fault(status: status, retryAfter: retryAfter, service: service)
            case .notJSON:
                return .garbage
            case .huge(let bytes, let chunked):
                return .huge(bytes: bytes, chunked: chunked)
            case .drip(let rate):
                drip = rate
            case .hang:
                // Cleared or replaced: the request is answered as the rules now say.
                guard await faults.hang(on: rule, clientGone: clientGone) else { return .abandoned }
                continue
            }
            break
        }
        var response: ReplayResponse
        if let failure = bestRule(failures, pattern: \.pattern, service: \.service, request: service, cities: cities) {
            response = .failure(failure.outcome, retryAfter: retryAfter, service: service)
        } else {
            response = answer()
        }
        if let drip { response.delivery = .drip(bytesPerSecond: drip) }
        return response
    }

    /// The answer the recorded data give. A forecast is the recorded one of the city the request
    /// resolves to, else one synthesized from its weather.
    private func answer(_ lookup: Lookup, resource: Resource, units: Units) -> ReplayResponse {
        switch lookup {
        case .city(_, let found?), .point(let found):
            switch resource {
            case .weather:
                return .weather(shiftTimes ? TimeShift.weather(found.body(in: units), now: now()) : found.body(in: units))
            case .forecast:
                guard let recorded = catalog.forecast(for: found, preferring: units) else {
                    return .weather(SynthesizedForecast.forecast(from: found, now: now()).body(in: units))
                }
                let forecast = shiftTimes ? TimeShift.forecast(recorded, weather: found, now: now()) : recorded
                return .weather(forecast.body(in: units))
            }
        case .city(_, nil):
            return .cityNotFound
        case .invalid(let response):
            return response
        }
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
        let key =
            "lat=\(lat.map { formatDecimal($0, decimals: 4) } ?? latText)"
            + "&lon=\(lon.map { formatDecimal($0, decimals: 4) } ?? lonText)"
        guard let lat else { return (key, .invalid(.wrongLatitude)) }
        guard let lon else { return (key, .invalid(.wrongLongitude)) }
        return (key, .point(catalog.weather(near: lat, lon)))
    }

    private func parseCoordinate(_ text: String, limit: Double) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ "+-.0123456789eE".contains($0) }),
            let value = Double(text), value.isFinite, abs(value) <= limit
        else { return nil }
        return value
    }
}

/// Formats `value` with at most `decimals` fraction digits, dropping trailing zeros (`8.90` → `8.9`).
func formatDecimal(_ value: Double, decimals: Int) -> String {
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
