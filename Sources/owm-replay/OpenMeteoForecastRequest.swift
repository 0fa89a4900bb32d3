import Foundation

/// A `400 {"error":true,"reason":…}` answer of Open-Meteo, with its reason.
struct OpenMeteoError: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// What a `GET /v1/forecast` asks, read and checked as Open-Meteo does: `latitude` and `longitude`
/// (comma-separated lists of the same length ask several points), `current`, `hourly` and `daily`
/// (comma-separated names, the parameter repeatable), the units, `timeformat`, `timezone` (one for
/// all points, or one per point), `forecast_days`/`past_days` or `forecast_hours`/`past_hours`.
/// Parameters it does not know are ignored, as Open-Meteo ignores them.
struct OpenMeteoForecastRequest: Sendable {
    static let maxPoints = 1000
    static let forecastDaysRange = 0...16
    static let pastDaysRange = 0...92

    var points: [(latitude: Double, longitude: Double)]
    var current: [OpenMeteoVariable]
    var hourly: [OpenMeteoVariable]
    var daily: [OpenMeteoDailyVariable]
    var units: OpenMeteoUnits
    /// One name for every point, or one per point (`GMT` when none is given; `auto` resolved per point).
    var timezones: [String]
    var forecastDays: Int?
    var pastDays: Int?
    var forecastHours: Int?
    var pastHours: Int?

    init(_ target: RequestTarget) throws(OpenMeteoError) {
        var units = OpenMeteoUnits()
        units.temperature = try Self.choice(target, "temperature_unit", type: "TemperatureUnit", default: .celsius)
        units.windSpeed = try Self.choice(
            target, target["wind_speed_unit"] == nil ? "windspeed_unit" : "wind_speed_unit", type: "WindspeedUnit",
            default: .kmh)
        units.precipitation = try Self.choice(target, "precipitation_unit", type: "PrecipitationUnit", default: .mm)
        units.timeFormat = try Self.choice(target, "timeformat", type: "Timeformat", default: .iso8601)
        if let format = target["format"], format != "json" {
            throw OpenMeteoError("owm-replay answers format=json only, not format=\(format)")
        }
        self.units = units
        forecastDays = try Self.integer(target, "forecast_days")
        pastDays = try Self.integer(target, "past_days")
        forecastHours = try Self.integer(target, "forecast_hours")
        pastHours = try Self.integer(target, "past_hours")

        points = try Self.points(target)
        let zones = target.values("timezone").flatMap { $0.split(separator: ",").map(String.init) }
        guard zones.count <= 1 || zones.count == points.count else {
            throw OpenMeteoError("Parameter 'latitude' and 'longitude' must have the same number of elements")
        }
        timezones = zones.isEmpty ? ["GMT"] : zones

        if let forecastDays, !Self.forecastDaysRange.contains(forecastDays) {
            throw OpenMeteoError("Forecast days is invalid. Allowed range 0 to 16. Given \(forecastDays).")
        }
        if let pastDays, !Self.pastDaysRange.contains(pastDays) {
            throw OpenMeteoError("Past days is invalid. Allowed range 0 to 92. Given \(pastDays).")
        }
        if let forecastHours, !(0...Self.forecastDaysRange.upperBound * 24).contains(forecastHours) {
            throw OpenMeteoError("Forecast days is invalid. Allowed range 0 to 384. Given \(forecastHours).")
        }
        if let pastHours, !(0...Self.pastDaysRange.upperBound * 24).contains(pastHours) {
            throw OpenMeteoError("Past days is invalid. Allowed range 0 to 2208. Given \(pastHours).")
        }

        current = try Self.variables(target, "current", type: "WeatherVariable")
        hourly = try Self.variables(target, "hourly", type: "WeatherVariable")
        daily = try Self.variables(target, "daily", type: "DailyWeatherVariable")
    }

    /// The points of `latitude` and `longitude`, in the order asked.
    static func points(_ target: RequestTarget) throws(OpenMeteoError) -> [(latitude: Double, longitude: Double)] {
        let latitudes = try coordinates(target, "latitude")
        let longitudes = try coordinates(target, "longitude")
        guard latitudes.count == longitudes.count else {
            throw OpenMeteoError("Parameter 'latitude' and 'longitude' must have the same number of elements")
        }
        guard latitudes.count <= maxPoints else {
            throw OpenMeteoError("Parameter 'latitude' and 'longitude' must not exceed \(maxPoints) coordinates.")
        }
        for (latitude, longitude) in zip(latitudes, longitudes) {
            guard (-90...90).contains(latitude) else {
                throw OpenMeteoError("Latitude must be in range of -90 to 90°. Given: \(Float(latitude)).")
            }
            guard (-180...180).contains(longitude) else {
                throw OpenMeteoError("Longitude must be in range of -180 to 180°. Given: \(Float(longitude)).")
            }
        }
        return Array(zip(latitudes, longitudes))
    }

    private static func coordinates(_ target: RequestTarget, _ name: String) throws(OpenMeteoError) -> [Double] {
        let texts = target.values(name).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        guard !texts.isEmpty else { throw OpenMeteoError("Value of type 'Float' required for key '\(name)'.") }
        var values: [Double] = []
        for text in texts {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.allSatisfy({ "+-.0123456789eE".contains($0) }), let value = Double(trimmed), value.isFinite else {
                throw OpenMeteoError("Value of type 'Float' required for key '\(name)'.")
            }
            values.append(value)
        }
        return values
    }

    /// The names of `name` (comma-separated, the parameter repeatable; empty names skipped, a name
    /// given twice kept once), in the order asked.
    private static func variables<Variable: RawRepresentable<String>>(
        _ target: RequestTarget, _ name: String, type: String
    ) throws(OpenMeteoError) -> [Variable] {
        var variables: [Variable] = []
        for text in target.values(name).flatMap({ $0.split(separator: ",") }) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let variable = Variable(rawValue: trimmed) else {
                throw OpenMeteoError("Cannot initialize \(type) from invalid String value \(trimmed) for key \(name)")
            }
            if !variables.contains(where: { $0.rawValue == variable.rawValue }) { variables.append(variable) }
        }
        return variables
    }

    private static func choice<Choice: RawRepresentable<String>>(
        _ target: RequestTarget, _ name: String, type: String, default fallback: Choice
    ) throws(OpenMeteoError) -> Choice {
        guard let text = target[name] else { return fallback }
        guard let choice = Choice(rawValue: text) else {
            throw OpenMeteoError("Cannot initialize \(type) from invalid String value \(text) for key \(name)")
        }
        return choice
    }

    private static func integer(_ target: RequestTarget, _ name: String) throws(OpenMeteoError) -> Int? {
        guard let text = target[name] else { return nil }
        guard let value = Int(text) else { throw OpenMeteoError("Value of type 'Int' required for key '\(name)'.") }
        return value
    }

    /// The hourly steps asked, around `now` in `zone`: with `forecast_hours` or `past_hours`, from
    /// `past_hours` before the current hour, `forecast_hours` (default 7 days of) hours; else from
    /// the midnight `past_days` days before today, `past_days` + `forecast_days` (default 7) days of
    /// hours.
    func hours(now: Int, zone: OpenMeteoZone) -> [Int] {
        if forecastHours != nil || pastHours != nil {
            let start = zone.startOfHour(now) - (pastHours ?? 0) * 3600
            return (0..<((pastHours ?? 0) + (forecastHours ?? 7 * 24))).map { start + $0 * 3600 }
        }
        let start = zone.startOfDay(now) - (pastDays ?? 0) * 86400
        return (0..<(((pastDays ?? 0) + (forecastDays ?? 7)) * 24)).map { start + $0 * 3600 }
    }

    /// The days asked (each its midnight in `zone`): from `past_days` before today,
    /// `past_days` + `forecast_days` (default 7) of them.
    func days(now: Int, zone: OpenMeteoZone) -> [Int] {
        let start = zone.startOfDay(now) - (pastDays ?? 0) * 86400
        return (0..<((pastDays ?? 0) + (forecastDays ?? 7))).map { start + $0 * 86400 }
    }
}
