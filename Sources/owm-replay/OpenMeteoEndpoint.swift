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
        let now = self.now()
        let points = (try? OpenMeteoForecastRequest.points(target)) ?? []
        stats.recordOpenMeteoForecast(points: points.map {
            "lat=\(formatDecimal($0.latitude, decimals: 4))&lon=\(formatDecimal($0.longitude, decimals: 4))"
        })
        let answered = points.map { catalog.openMeteoPoint($0.latitude, $0.longitude, now: now) }
        var cities: [(name: String, country: String?)] = []
        for point in points {
            let weather = catalog.weather(near: point.latitude, point.longitude, now: now)
            if !weather.name.isEmpty, !cities.contains(where: { $0.name == weather.name && $0.country == weather.country }) {
                cities.append((weather.name, weather.country))
            }
        }
        let isList = target.values("latitude").contains { $0.contains(",") } || target.values("latitude").count > 1
        return await guarded(target, service: .openMeteo, cities: cities, clientGone: clientGone) {
            do throws(OpenMeteoError) {
                let request = try OpenMeteoForecastRequest(target)
                var bodies: [JSONValue] = []
                for (index, point) in answered.enumerated() {
                    let zone = try openMeteoZone(request.timezones[request.timezones.count == 1 ? 0 : index], for: point)
                    bodies.append(.object(OpenMeteoForecast.body(point, request, zone: zone)))
                }
                return .json(200, (isList ? JSONValue.array(bodies) : bodies[0]).serialized)
            } catch {
                return .openMeteoError(400, error.reason)
            }
        }
    }

    /// The zone `name` names for `point`, at its present: `auto` is the zone the point was recorded
    /// in, else GMT.
    private func openMeteoZone(_ name: String, for point: OpenMeteoPoint) throws(OpenMeteoError) -> OpenMeteoZone {
        if name == "auto" { return point.recordedZone ?? .gmt }
        guard let zone = OpenMeteoZone(named: name, at: point.now) else { throw OpenMeteoError("Invalid timezone") }
        return zone
    }
}
