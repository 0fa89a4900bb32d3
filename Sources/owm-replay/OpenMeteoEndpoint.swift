import Foundation
import WeatherCore

/// Open-Meteo's forecast API (`GET /v1/forecast`), beside OpenWeatherMap's on the same port.
extension WeatherEndpoint {
    /// `GET /v1/forecast?latitude=…&longitude=…&current=…&hourly=…&daily=…`: for one point an object,
    /// for lists of points a JSON array of them in the order asked (`OpenMeteoForecast`), or `400
    /// {"error":true,"reason":…}` for a request Open-Meteo would refuse. The rules and faults of the
    /// `open-meteo` service (and of both) apply, matched on the cities the points resolve to (as a
    /// point of `/data/2.5/weather` resolves: the nearest recorded city or known place within 25 km);
    /// one that covers any of the points answers for the whole request.
    func openMeteoForecast(_ target: RequestTarget, clientGone: Gate?) async -> ReplayResponse {
        let points = (try? OpenMeteoForecastRequest.points(target)) ?? []
        stats.recordOpenMeteoForecast(
            points: points.map {
                "lat=\(formatDecimal($0.latitude, decimals: 4))&lon=\(formatDecimal($0.longitude, decimals: 4))"
            })
        var cities: [(name: String, country: String?)] = []
        for point in points {
            let weather = catalog.weather(near: point.latitude, point.longitude)
            if !weather.name.isEmpty, !cities.contains(where: { $0.name == weather.name && $0.country == weather.country }) {
                cities.append((weather.name, weather.country))
            }
        }
        let isList = target.values("latitude").contains { $0.contains(",") } || target.values("latitude").count > 1
        return await guarded(target, service: .openMeteo, cities: cities, clientGone: clientGone) {
            do throws(OpenMeteoError) {
                let request = try OpenMeteoForecastRequest(target)
                // Made up now, after any delay or hang: the present of the answer is when it goes out.
                let now = self.now()
                var bodies: [JSONValue] = []
                for (index, asked) in request.points.enumerated() {
                    let point = catalog.openMeteoPoint(asked.latitude, asked.longitude, now: now, shiftTimes: shiftTimes)
                    let zone = try openMeteoZone(request.timezones[request.timezones.count == 1 ? 0 : index], for: point)
                    bodies.append(.object(OpenMeteoForecast.body(point, request, zone: zone)))
                }
                return .json(200, (isList ? JSONValue.array(bodies) : bodies[0]).serialized)
            } catch {
                return .openMeteoError(400, error.reason)
            }
        }
    }

    /// The zone `name` names for `point`, at its present (`auto`: `OpenMeteoPoint.autoZone`).
    private func openMeteoZone(_ name: String, for point: OpenMeteoPoint) throws(OpenMeteoError) -> OpenMeteoZone {
        if name == "auto" { return point.autoZone }
        guard let zone = OpenMeteoZone(named: name, at: point.now) else { throw OpenMeteoError("Invalid timezone") }
        return zone
    }
}

/// Open-Meteo's geocoding API (`GET /v1/search`).
extension WeatherEndpoint {
    static let openMeteoSearchCount = 1...100
    static let openMeteoDefaultSearchCount = 10

    /// `GET /v1/search?name=NAME[&count=1..100][&countryCode=CC][&language=…][&format=json]`: the places
    /// NAME names, best first, at most `count` (default 10), as `{"results":[…],"generationtime_ms":…}`;
    /// for a name it knows no place of, the answer without `results`. A recorded answer for NAME
    /// (`open-meteo/search/<name>.json`) is served as recorded; else the places of Open-Meteo's
    /// gazetteer with that name, or from 3 characters on a name that begins so (whole names first), as
    /// Open-Meteo matches as one types. `countryCode`, and a part of NAME after a comma (its state,
    /// region or country: `Springfield, Missouri`), narrow them; a name shorter than 2 characters
    /// finds nothing, as on Open-Meteo. The rules and faults naming NAME (and `countryCode`) apply.
    func openMeteoSearch(_ target: RequestTarget, clientGone: Gate?) async -> ReplayResponse {
        let text = target["name"] ?? ""
        let comma = text.firstIndex(of: ",")
        let name = String(text[..<(comma ?? text.endIndex)]).trimmingCharacters(in: .whitespaces)
        let area = comma.map { String(text[text.index(after: $0)...]).trimmingCharacters(in: .whitespaces) }
        let countryCode = target["countryCode"].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        stats.recordOpenMeteoSearch(
            "search:name=" + normalizeCityName(text) + (countryCode.map { "&countryCode=" + $0.lowercased() } ?? ""))
        let cities = name.isEmpty ? [] : [(name: name, country: countryCode)]
        return await guarded(target, service: .openMeteo, cities: cities, clientGone: clientGone) {
            guard target["name"] != nil else {
                return .openMeteoError(400, "Value of type 'String' required for key 'name'.")
            }
            var count = Self.openMeteoDefaultSearchCount
            if let countText = target["count"] {
                guard let value = Int(countText) else {
                    return .openMeteoError(400, "Value of type 'Int' required for key 'count'.")
                }
                count = value
            }
            guard Self.openMeteoSearchCount.contains(count) else {
                return .openMeteoError(400, "Parameter count must be between 1 and 100.")
            }
            if let format = target["format"], format != "json" {
                return .openMeteoError(400, "owm-replay answers format=json only, not format=\(format)")
            }
            // A recorded answer is the answer for its name alone: with a part after a comma, the
            // gazetteer (which has its places) answers.
            let recorded = (area ?? "").isEmpty ? catalog.openMeteoSearches.first { $0.answers(name) } : nil
            let places: [OpenMeteoPlace]
            if name.count < 2 {
                places = []
            } else if let recorded {
                places = recorded.places.filter { countryCode == nil || $0.countryCode.uppercased() == countryCode?.uppercased() }
            } else {
                let whole = catalog.openMeteoPlaces.filter { $0.matches(name: name, area: area, countryCode: countryCode) }
                let begun =
                    name.count < 3
                    ? []
                    : catalog.openMeteoPlaces.filter {
                        !$0.matches(name: name, area: area, countryCode: countryCode)
                            && $0.matches(name: name, prefix: true, area: area, countryCode: countryCode)
                    }
                places = whole + begun
            }
            guard !places.isEmpty else {
                let empty =
                    catalog.openMeteoEmptySearch
                    ?? ["generationtime_ms": .double(OpenMeteoPoint.madeUpGenerationTime("search:" + text))]
                return .json(200, JSONValue.object(empty).serialized)
            }
            if let recorded, places.count == recorded.places.count, count >= places.count {
                return .json(200, JSONValue.object(recorded.body).serialized)
            }
            let generationTime = recorded?.body["generationtime_ms"] ?? .double(OpenMeteoPoint.madeUpGenerationTime("search:" + text))
            let body: JSONObject = [
                "results": .array(places.prefix(count).map { .object($0.body) }),
                "generationtime_ms": generationTime,
            ]
            return .json(200, JSONValue.object(body).serialized)
        }
    }
}
