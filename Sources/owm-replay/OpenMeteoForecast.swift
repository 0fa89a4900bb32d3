import WeatherCore

/// The body of Open-Meteo's `/v1/forecast` for one point, as Open-Meteo writes it:
/// `{"latitude","longitude","generationtime_ms","utc_offset_seconds","timezone","timezone_abbreviation",
/// "elevation","current_units","current","hourly_units","hourly","daily_units","daily"}`, each block
/// only when asked, and in each only the variables asked, in the order asked.
enum OpenMeteoForecast {
    static func body(_ point: OpenMeteoPoint, _ request: OpenMeteoForecastRequest, zone: OpenMeteoZone) -> JSONObject {
        let units = request.units
        func time(_ seconds: Int) -> JSONValue {
            units.timeFormat == .unixtime ? .integer(Int64(seconds)) : .string(zone.dateTime(seconds))
        }
        var body: JSONObject = [
            "latitude": .double(point.latitude),
            "longitude": .double(point.longitude),
            "generationtime_ms": .double(point.generationTime),
            "utc_offset_seconds": .integer(Int64(zone.offset)),
            "timezone": .string(zone.identifier),
            "timezone_abbreviation": .string(zone.abbreviation),
            "elevation": .double(point.elevation),
        ]
        if !request.current.isEmpty {
            let current = point.current
            var currentUnits: JSONObject = ["time": .string(units.timeFormat.rawValue), "interval": "seconds"]
            var block: JSONObject = ["time": time(current.time), "interval": .integer(900)]
            for variable in request.current {
                currentUnits[variable.rawValue] = .string(units.name(of: variable.quantity))
                block[variable.rawValue] = units.json(current.values[variable], variable.quantity)
            }
            body["current_units"] = .object(currentUnits)
            body["current"] = .object(block)
        }
        if !request.hourly.isEmpty {
            let steps = point.hours(request.hours(now: point.now, zone: zone))
            var hourlyUnits: JSONObject = ["time": .string(units.timeFormat.rawValue)]
            var block: JSONObject = ["time": .array(steps.map { time($0.time) })]
            for variable in request.hourly {
                hourlyUnits[variable.rawValue] = .string(units.name(of: variable.quantity))
                block[variable.rawValue] = .array(steps.map { units.json($0.values[variable], variable.quantity) })
            }
            body["hourly_units"] = .object(hourlyUnits)
            body["hourly"] = .object(block)
        }
        if !request.daily.isEmpty {
            let days = request.days(now: point.now, zone: zone)
            let steps = point.hours(days.flatMap { day in (0..<24).map { day + $0 * 3600 } })
            let stepsOfDays = days.map { day in steps.filter { (day..<day + 86400).contains($0.time) } }
            var dailyUnits: JSONObject = ["time": .string(units.timeFormat.rawValue)]
            var block: JSONObject = [
                "time": .array(days.map { units.timeFormat == .unixtime ? .integer(Int64($0)) : .string(zone.date($0)) })
            ]
            for variable in request.daily {
                dailyUnits[variable.rawValue] = .string(units.name(of: variable.quantity))
                block[variable.rawValue] = .array(stepsOfDays.map { units.json(variable.aggregate($0), variable.quantity) })
            }
            body["daily_units"] = .object(dailyUnits)
            body["daily"] = .object(block)
        }
        return body
    }
}
