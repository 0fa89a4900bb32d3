import WeatherCore

/// A recorded answer of Open-Meteo's `/v1/forecast` for one point (`open-meteo/forecast/<slug>.json`
/// of the data directory), read into times and values in the stand-in's own units. Its `current`
/// block and its `hourly` steps are served again, in the units, time format, timezone and variables
/// a request asks; its `daily` block is not (daily values are made from the hourly ones).
struct OpenMeteoRecording: Sendable {
    let file: String
    let latitude: Double
    let longitude: Double
    let elevation: Double?
    let generationTime: Double?
    /// The timezone it was recorded in (`timezone=auto` answers in it).
    let zone: OpenMeteoZone
    /// Its `current` block, if any.
    private(set) var current: OpenMeteoStep?
    private(set) var hourly: [OpenMeteoStep]

    /// How far (in degrees of latitude and of longitude) a point may be from the recording's point
    /// to be answered with it.
    static let reach = 0.05

    init(file: String, body: JSONObject) throws(CatalogError) {
        guard let latitude = body["latitude"]?.doubleValue, let longitude = body["longitude"]?.doubleValue,
            body["current"]?.objectValue != nil || body["hourly"]?.objectValue != nil
        else {
            throw CatalogError(
                file: file, reason: "not an Open-Meteo forecast answer for one point (latitude, longitude, current or hourly)")
        }
        self.file = file
        self.latitude = latitude
        self.longitude = longitude
        elevation = body["elevation"]?.doubleValue
        generationTime = body["generationtime_ms"]?.doubleValue
        let offset = body["utc_offset_seconds"]?.intValue ?? 0
        zone = OpenMeteoZone(
            identifier: body["timezone"]?.stringValue ?? "GMT", abbreviation: body["timezone_abbreviation"]?.stringValue ?? "GMT",
            offset: offset)

        if let block = body["current"]?.objectValue {
            let units = body["current_units"]?.objectValue ?? [:]
            guard let time = block["time"].flatMap({ Self.time($0, offset: offset) }) else {
                throw CatalogError(file: file, reason: "current.time is not a time")
            }
            var values: [OpenMeteoVariable: Double] = [:]
            for variable in OpenMeteoVariable.allCases {
                guard let number = block[variable.rawValue]?.doubleValue else { continue }
                values[variable] = try Self.canonical(number, variable, units: units, file: file)
            }
            current = OpenMeteoStep(time: time, values: values)
        } else {
            current = nil
        }

        var hourly: [OpenMeteoStep] = []
        if let block = body["hourly"]?.objectValue {
            let units = body["hourly_units"]?.objectValue ?? [:]
            guard let times = block["time"]?.arrayValue else {
                throw CatalogError(file: file, reason: "hourly.time is not a list")
            }
            for (index, text) in times.enumerated() {
                guard let time = Self.time(text, offset: offset) else {
                    throw CatalogError(file: file, reason: "hourly.time[\(index)] is not a time")
                }
                var values: [OpenMeteoVariable: Double] = [:]
                for variable in OpenMeteoVariable.allCases {
                    guard let column = block[variable.rawValue]?.arrayValue else { continue }
                    guard column.count == times.count else {
                        throw CatalogError(file: file, reason: "hourly.\(variable.rawValue) has not one value per time")
                    }
                    guard let number = column[index].doubleValue else { continue }
                    values[variable] = try Self.canonical(number, variable, units: units, file: file)
                }
                hourly.append(OpenMeteoStep(time: time, values: values))
            }
        }
        self.hourly = hourly
    }

    /// Its present: the time of its `current` block, else of its first hourly step.
    var present: Int? { current?.time ?? hourly.first?.time }

    /// The recording with every time moved by the same whole hours, so that its present is the
    /// hour of `now` (Unix seconds) (`--shift-times`).
    func moved(toHourOf now: Int) -> OpenMeteoRecording {
        guard let present else { return self }
        let shift = (now / 3600 - present / 3600) * 3600
        var moved = self
        moved.current = current.map { OpenMeteoStep(time: $0.time + shift, values: $0.values) }
        moved.hourly = hourly.map { OpenMeteoStep(time: $0.time + shift, values: $0.values) }
        return moved
    }

    /// Whether a request for the point is answered with this recording.
    func covers(latitude: Double, longitude: Double) -> Bool {
        abs(latitude - self.latitude) <= Self.reach && abs(longitude - self.longitude) <= Self.reach
    }

    /// A time of the answer: `2021-11-24T23:00` in the recording's zone, or Unix seconds.
    private static func time(_ value: JSONValue, offset: Int) -> Int? {
        if let seconds = value.intValue { return seconds }
        return value.stringValue.flatMap { OpenMeteoZone.time($0, offset: offset) }
    }

    private static func canonical(
        _ number: Double, _ variable: OpenMeteoVariable, units: JSONObject, file: String
    ) throws(CatalogError) -> Double {
        let unit = units[variable.rawValue]?.stringValue ?? ""
        guard let value = OpenMeteoUnits.canonical(number, unit: unit, variable.quantity) else {
            throw CatalogError(file: file, reason: "\(variable.rawValue) in unknown unit \"\(unit)\"")
        }
        return value
    }
}
