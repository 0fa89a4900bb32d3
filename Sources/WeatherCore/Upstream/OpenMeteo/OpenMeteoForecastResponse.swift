#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the answers of Open-Meteo's forecast API (`/v1/forecast`): for one point an object with
/// `utc_offset_seconds`, a `current` block and/or an `hourly` block of parallel arrays, each with the
/// unit names of its variables (`current_units`, `hourly_units`); for several points (`latitude` and
/// `longitude` given as comma-separated lists) a JSON array of such objects, in the order asked.
/// Missing values are `null` there and nil here; the weather code becomes OpenWeatherMap's condition,
/// description and icon (``WMOWeatherCode``).
public enum OpenMeteoForecastResponse {
    /// What a body says, before its HTTP status is taken into account.
    public enum Body: Sendable, Equatable {
        /// The answer of each point: one for an object, one per element for an array.
        case points([JSONObject])
        /// An error body, `{"error": true, "reason": "…"}`.
        case error(reason: String?)
    }

    /// Decodes a body; nil when it is not JSON, or neither an object nor an array of objects.
    public static func decode(_ bytes: [UInt8]) -> Body? {
        guard let json = try? JSONValue.parse(bytes) else { return nil }
        if let object = json.objectValue {
            if object["error"]?.boolValue == true { return .error(reason: object["reason"]?.stringValue) }
            return .points([object])
        }
        guard let elements = json.arrayValue else { return nil }
        var points: [JSONObject] = []
        for element in elements {
            guard let object = element.objectValue else { return nil }
            points.append(object)
        }
        return .points(points)
    }

    /// The current weather in one point's answer (its `current` block) in `units`, at `coordinate`:
    /// the point asked, not the grid cell Open-Meteo answers for (its `latitude`/`longitude`), so the
    /// caller can tell which answer is which point's. nil when the answer has no `current` block.
    /// `fetchedAt` is not set; `provider` is `open-meteo`; no name, no city id.
    public static func observation(_ point: JSONObject, at coordinate: Coordinate, units: Units) -> WeatherObservation? {
        guard let current = point["current"]?.objectValue else { return nil }
        let names = point["current_units"]?.objectValue
        let offset = point["utc_offset_seconds"]?.intValue ?? 0
        let values = Variables(units: units) { name in
            (current[name], names?[name]?.stringValue)
        }
        var observation = WeatherObservation(
            coordinate: coordinate,
            temperature: values.temperature("temperature_2m"), feelsLike: values.temperature("apparent_temperature"),
            humidity: values.plain("relative_humidity_2m"), pressure: values.plain("pressure_msl"),
            windSpeed: values.windSpeed("wind_speed_10m"), windDeg: values.plain("wind_direction_10m"),
            clouds: values.plain("cloud_cover"),
            condition: values.weather?.condition, conditionDescription: values.weather?.description, icon: values.icon,
            observedAt: OpenMeteoUnit.time(current["time"], utcOffset: offset),
            units: units)
        observation.provider = WeatherProviderName.openMeteo.rawValue
        return observation
    }

    /// The hourly forecast in one point's answer (its `hourly` block) in `units`, at `coordinate` (the
    /// point asked). Like OpenWeatherMap's, the first step is the one in progress at `now` or the
    /// next: steps that ended by `now` are left out (Open-Meteo starts at midnight), and so are
    /// entries without a readable time. nil when the answer has no `hourly.time`.
    ///
    /// `rain_3h` is the step's `rain` plus `showers` (whichever is given), or its `precipitation`
    /// when the answer has neither variable; `snow_3h` its `snowfall` in mm of snow depth (Open-Meteo's cm × 10);
    /// `pop` its `precipitation_probability` as a fraction. The place is the point with only its
    /// coordinate, provider and units (``WeatherObservation/fetchedAt`` is the client's to set).
    public static func forecast(_ point: JSONObject, at coordinate: Coordinate, units: Units, now: Date) -> WeatherForecast? {
        guard let hourly = point["hourly"]?.objectValue, let times = hourly["time"]?.arrayValue else { return nil }
        let names = point["hourly_units"]?.objectValue
        let offset = point["utc_offset_seconds"]?.intValue ?? 0
        var columns: [String: [JSONValue]] = [:]
        for (name, value) in hourly.members { columns[name] = value.arrayValue }
        // An answer to an older query (the recorded one) has `precipitation` instead.
        let rainGiven = columns["rain"] != nil || columns["showers"] != nil
        var steps: [ForecastStep] = []
        for (index, time) in times.enumerated() {
            guard let at = OpenMeteoUnit.time(time, utcOffset: offset),
                at.addingTimeInterval(TimeInterval(ForecastStep.oneHour)) > now
            else { continue }
            let values = Variables(units: units) { name in
                let column = columns[name]
                return (column.flatMap { index < $0.count ? $0[index] : nil }, names?[name]?.stringValue)
            }
            let rain =
                rainGiven
                ? OpenMeteoUnit.total(values.millimetres("rain"), values.millimetres("showers"))
                : values.millimetres("precipitation")
            steps.append(
                ForecastStep(
                    at: at,
                    temperature: values.temperature("temperature_2m"), feelsLike: values.temperature("apparent_temperature"),
                    humidity: values.plain("relative_humidity_2m"), pressure: values.plain("pressure_msl"),
                    windSpeed: values.windSpeed("wind_speed_10m"), windDeg: values.plain("wind_direction_10m"),
                    clouds: values.plain("cloud_cover"), pop: values.fraction("precipitation_probability"),
                    rain3h: rain, snow3h: values.millimetres("snowfall", absent: "cm"),
                    condition: values.weather?.condition, conditionDescription: values.weather?.description,
                    icon: values.icon))
        }
        var place = WeatherObservation(coordinate: coordinate, units: units)
        place.provider = WeatherProviderName.openMeteo.rawValue
        return WeatherForecast(place: place, steps: steps, step: ForecastStep.oneHour)
    }

    /// The variables of one time (the `current` block, or one index of the `hourly` arrays), each
    /// read with its unit name and converted to `units`.
    private struct Variables {
        let units: Units
        /// A variable's value and its unit name.
        let lookup: (String) -> (value: JSONValue?, unit: String?)

        func number(_ name: String) -> (value: Double?, unit: String?) {
            let (value, unit) = lookup(name)
            return (value?.doubleValue, unit)
        }

        /// A value taken as it comes: %, hPa, degrees.
        func plain(_ name: String) -> Double? {
            number(name).value.flatMap { $0.isFinite ? $0 : nil }
        }

        func temperature(_ name: String) -> Double? {
            let (value, unit) = number(name)
            return OpenMeteoUnit.temperature(value, unit: unit, to: units)
        }

        func windSpeed(_ name: String) -> Double? {
            let (value, unit) = number(name)
            return OpenMeteoUnit.windSpeed(value, unit: unit, to: units)
        }

        func millimetres(_ name: String, absent: String = "mm") -> Double? {
            let (value, unit) = number(name)
            return OpenMeteoUnit.millimetres(value, unit: unit, absent: absent)
        }

        func fraction(_ name: String) -> Double? {
            let (value, unit) = number(name)
            return OpenMeteoUnit.fraction(value, unit: unit)
        }

        /// The WMO weather code's entry; nil when there is none or the code is unknown.
        var weather: WMOWeatherCode? {
            lookup("weather_code").value?.intValue.flatMap { WMOWeatherCode($0) }
        }

        /// The icon of the weather code, by day or by night (`is_day` 1 or 0; day when not given).
        var icon: String? {
            weather?.icon(isDay: lookup("is_day").value?.intValue != 0)
        }
    }
}
