import Foundation
import WeatherCore

/// Open-Meteo's air quality API (`GET /v1/air-quality`), beside its forecast API on the same port.
extension WeatherEndpoint {
    /// `GET /v1/air-quality?latitude=…&longitude=…&current=…`: for one point an object, for lists of
    /// points a JSON array of them in the order asked, or `400 {"error":true,"reason":…}` for points
    /// Open-Meteo would refuse. A point within ``OpenMeteoAirQuality/recordingRadius`` of a recorded
    /// answer (`open-meteo/air-quality/`) gets it as recorded (with `--shift-times`, its `current.time`
    /// moved to the present hour); any other point a made-up one, the same for the same 0.01° cell
    /// (``OpenMeteoAirQuality/synthesized(latitude:longitude:)``). The rules and faults of the
    /// `open-meteo` service apply, matched on the cities the points resolve to, as for `/v1/forecast`.
    func openMeteoAirQuality(_ target: RequestTarget, clientGone: Gate?) async -> ReplayResponse {
        let points = (try? OpenMeteoForecastRequest.points(target)) ?? []
        stats.recordAirQuality(points: points.count)
        var cities: [(name: String, country: String?)] = []
        for point in points {
            let weather = catalog.weather(near: point.latitude, point.longitude)
            if !weather.name.isEmpty, !cities.contains(where: { $0.name == weather.name && $0.country == weather.country }) {
                cities.append((weather.name, weather.country))
            }
        }
        let isList = target.values("latitude").contains { $0.contains(",") } || target.values("latitude").count > 1
        return await guarded(target, service: .openMeteo, cities: cities, clientGone: clientGone) {
            let points: [(latitude: Double, longitude: Double)]
            do throws(OpenMeteoError) {
                points = try OpenMeteoForecastRequest.points(target)
            } catch {
                return .openMeteoError(400, error.reason)
            }
            let unixTime = target["timeformat"] == "unixtime"
            let asked = target.values("current").flatMap { $0.split(separator: ",").map(String.init) }
            // Made up now, after any delay or hang: the present of the answer is when it goes out.
            let hour = Int(self.now().timeIntervalSince1970) / 3600 * 3600
            let bodies = points.map { point -> JSONValue in
                if let recorded = catalog.airQualityRecording(near: point.latitude, point.longitude) {
                    return .object(shiftTimes ? OpenMeteoAirQuality.moved(recorded, toHour: hour, unixTime: unixTime) : recorded)
                }
                return .object(
                    OpenMeteoAirQuality.body(
                        latitude: point.latitude, longitude: point.longitude, hour: hour, unixTime: unixTime, variables: asked))
            }
            return .json(200, (isList ? JSONValue.array(bodies) : bodies[0]).serialized)
        }
    }
}

/// The answers owm-replay makes up for Open-Meteo's air quality API.
enum OpenMeteoAirQuality {
    /// How far from a recorded answer's point (in degrees of latitude and of longitude) it answers:
    /// about CAMS Europe's grid cell.
    static let recordingRadius = 0.15

    /// The variables of `current` it knows, with their units.
    static let units: [(name: String, unit: String)] = [
        ("pm10", "μg/m³"), ("pm2_5", "μg/m³"), ("nitrogen_dioxide", "μg/m³"), ("ozone", "μg/m³"), ("european_aqi", "EAQI"),
        ("us_aqi", "USAQI"),
    ]

    /// The made-up air of one 0.01° cell: pollutants from the cell alone (stable across runs,
    /// ``stableHash(_:)``), and both indexes computed from them as their agencies do (the highest
    /// sub-index of the pollutants; the EPA's from PM2.5 and PM10), so the numbers agree.
    static func synthesized(latitude: Double, longitude: Double) -> [String: Double] {
        let cell = String(format: "%.2f,%.2f", latitude, longitude)
        let hash = stableHash("air-quality:" + cell)
        func unit(_ shift: UInt64) -> Double { Double((hash >> shift) & 0xFFFF) / 65_536 }
        let pm25 = rounded(2 + 38 * unit(0))
        let pm10 = rounded(pm25 * (1.2 + 0.8 * unit(16)))
        let ozone = rounded(20 + 100 * unit(32))
        let no2 = rounded(2 + 50 * unit(48))
        let european = [
            subIndex(pm25, [0, 10, 20, 25, 50, 75, 800]), subIndex(pm10, [0, 20, 40, 50, 100, 150, 1200]),
            subIndex(no2, [0, 40, 90, 120, 230, 340, 1000]), subIndex(ozone, [0, 50, 100, 130, 240, 380, 800]),
        ].max()!
        let us = [
            subIndex(pm25, [0, 9, 35.4, 55.4, 125.4, 225.4, 325.4], indexes: [0, 50, 100, 150, 200, 300, 500]),
            subIndex(pm10, [0, 54, 154, 254, 354, 424, 604], indexes: [0, 50, 100, 150, 200, 300, 500]),
        ].max()!
        return [
            "pm10": pm10, "pm2_5": pm25, "nitrogen_dioxide": no2, "ozone": ozone, "european_aqi": european.rounded(),
            "us_aqi": us.rounded(),
        ]
    }

    /// The answer for one point at `hour` (Unix seconds): `current` with the `variables` asked (all it
    /// knows when none), its time as Unix seconds or ISO 8601 in GMT.
    static func body(latitude: Double, longitude: Double, hour: Int, unixTime: Bool, variables: [String]) -> JSONObject {
        let values = synthesized(latitude: latitude, longitude: longitude)
        let known = units.filter { variables.isEmpty || variables.contains($0.name) }
        var currentUnits: JSONObject = ["time": .string(unixTime ? "unixtime" : "iso8601"), "interval": "seconds"]
        var current: JSONObject = ["time": time(hour, offset: 0, unixTime: unixTime), "interval": .integer(3600)]
        for (name, unit) in known {
            currentUnits[name] = .string(unit)
            current[name] = name.hasSuffix("aqi") ? .integer(Int64(values[name]!)) : .double(values[name]!)
        }
        return [
            "latitude": .double(rounded(latitude, 2)), "longitude": .double(rounded(longitude, 2)),
            "generationtime_ms": .double(OpenMeteoPoint.madeUpGenerationTime("air-quality:\(latitude),\(longitude)")),
            "utc_offset_seconds": .integer(0), "timezone": "GMT", "timezone_abbreviation": "GMT",
            "current_units": .object(currentUnits), "current": .object(current),
        ]
    }

    /// A recorded answer with its `current.time` moved to `hour` (in its own offset).
    static func moved(_ recorded: JSONObject, toHour hour: Int, unixTime: Bool) -> JSONObject {
        var body = recorded
        guard var current = body["current"]?.objectValue else { return body }
        current["time"] = time(hour, offset: recorded["utc_offset_seconds"]?.intValue ?? 0, unixTime: unixTime)
        body["current"] = .object(current)
        if unixTime, var units = body["current_units"]?.objectValue {
            units["time"] = "unixtime"
            body["current_units"] = .object(units)
        }
        return body
    }

    /// `hour` as Unix seconds, or as the local time `YYYY-MM-DDTHH:MM` `offset` seconds from UTC.
    private static func time(_ hour: Int, offset: Int, unixTime: Bool) -> JSONValue {
        if unixTime { return .integer(Int64(hour)) }
        let text = Date(timeIntervalSince1970: TimeInterval(hour + offset)).formatted(Date.ISO8601FormatStyle())
        return .string(String(text.prefix(16)))
    }

    /// The index of `value` on a scale of breakpoints (linear within a band); bands of 20 by default
    /// (the European index's).
    private static func subIndex(_ value: Double, _ breakpoints: [Double], indexes: [Double] = [0, 20, 40, 60, 80, 100, 120]) -> Double {
        for band in 1..<breakpoints.count where value <= breakpoints[band] {
            let low = breakpoints[band - 1]
            let high = breakpoints[band]
            return indexes[band - 1] + (value - low) / (high - low) * (indexes[band] - indexes[band - 1])
        }
        return indexes[indexes.count - 1]
    }

    private static func rounded(_ value: Double, _ decimals: Int = 1) -> Double {
        let scale = decimals == 1 ? 10.0 : 100.0
        return (value * scale).rounded() / scale
    }
}
