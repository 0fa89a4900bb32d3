import WeatherRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The weather of the place a bar shows: its Feature (from the overlays, or a `forecast` answer)
/// and, once asked, the forecast of that point. Values the Feature lacks (a `forecast` answer
/// carries no current weather) come from the forecast's current step.
struct BarWeather: Sendable, Equatable {
    /// A Feature (the protocol's shape).
    var feature: JSONValue
    /// The `forecast` answer for the place (a Feature with `properties.forecast`), once known.
    var forecast: JSONValue?
    /// The last answer is kept after asking again failed.
    var outdated = false

    /// The CAP severities, least severe first (an unknown one ranks as `Unknown`).
    static let severities = ["Unknown", "Minor", "Moderate", "Severe", "Extreme"]

    /// The AQI scale used when the feature does not name one: `air-quality.scale`'s default.
    static let defaultAQIScale = "european"

    var properties: JSONValue { feature["properties"] ?? .null }
    var units: Units { Units(rawValue: properties["units"]?.stringValue ?? "") ?? .metric }

    /// The forecast's steps, oldest first.
    var steps: [JSONValue] { forecast?["properties"]?["forecast"]?.arrayValue ?? [] }

    /// The length of a step in seconds (3 hours unless the answer says).
    var stepLength: TimeInterval { TimeInterval(forecast?["properties"]?["forecast_step"]?.intValue ?? 10_800) }

    /// The steps from the one in progress at `now` on.
    func upcoming(at now: Date) -> ArraySlice<JSONValue> {
        let length = stepLength
        let first = steps.firstIndex { step in
            guard let at = step["at"]?.stringValue.flatMap(Timestamp.parse) else { return false }
            return at.addingTimeInterval(length) > now
        }
        return first.map { steps[$0...] } ?? []
    }

    /// A current value: the Feature's, else the step in progress's.
    func current(_ key: String, at now: Date) -> JSONValue? {
        if let value = properties[key], !value.isNull { return value }
        if let value = upcoming(at: now).first?[key], !value.isNull { return value }
        return nil
    }

    /// `London, England, GB`, or the point's coordinates.
    var place: String { HumanFormat.place(feature) }

    /// The next hour's precipitation probability, 0 to 100: the step in progress (nil until the
    /// forecast is known or when it has none).
    func precipitationPercent(at now: Date) -> Int? {
        upcoming(at: now).first?["pop"]?.doubleValue.map { Int(($0 * 100).rounded()) }
    }

    /// The active alerts, most severe first (the Feature's `alerts`; none when absent or null).
    var alerts: [JSONValue] {
        (properties["alerts"]?.arrayValue ?? []).enumerated()
            .sorted { ($1.element.severityRank, $0.offset) < ($0.element.severityRank, $1.offset) }
            .map(\.element)
    }

    /// The most severe alert's severity, lower case (`severe`), or nil without alerts.
    var alertSeverity: String? {
        alerts.first.map { ($0["severity"]?.stringValue ?? "Unknown").lowercased() }
    }

    /// The air quality index of the scale the feature names (else the European one), or nil.
    var airQualityIndex: Int? {
        guard let quality = properties["air_quality"], !quality.isNull else { return nil }
        let scale = quality["scale"]?.stringValue ?? Self.defaultAQIScale
        return quality["\(scale)_aqi"]?.doubleValue.map { Int($0.rounded()) }
    }

    /// `clouds`, `rain`, `thunderstorm`: the condition as a CSS class name.
    func conditionClass(at now: Date) -> String? {
        guard let condition = current("condition", at: now)?.stringValue, !condition.isEmpty else { return nil }
        return String(condition.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    /// Whether the weather shown is an old one: a watched city's failed refresh, or a place asked
    /// again without answer.
    var isStale: Bool { outdated || properties["stale"]?.boolValue == true }

    /// A placeholder's value, unescaped; nil when unknown.
    func value(of placeholder: BarTemplate.Placeholder, at now: Date) -> String? {
        switch placeholder {
        case .symbol: return current("symbol", at: now)?.stringValue
        case .temperature:
            return current("temperature", at: now)?.doubleValue.map { value in
                let whole = Int(value.rounded())
                return "\(whole == 0 ? 0 : whole)"  // never "-0"
            }
        case .unit: return HumanFormat.temperatureUnit(units)
        case .name: return properties["name"]?.stringValue ?? place
        case .description: return (current("description", at: now) ?? current("condition", at: now))?.stringValue
        case .humidity: return current("humidity", at: now)?.doubleValue.map { "\(HumanFormat.fixed($0, 0))%" }
        case .wind:
            return current("wind_speed", at: now)?.doubleValue.map { "\(HumanFormat.fixed($0, 1)) \(HumanFormat.speedUnit(units))" }
        case .aqi: return airQualityIndex.map(String.init)
        case .alerts: return alerts.first?["event"]?.stringValue
        }
    }

    /// The tooltip's lines: the place; the weather now; humidity and wind; air quality; the next
    /// hours (times in `timeZone`); each alert; the data's credit; whether it is old.
    func tooltipLines(at now: Date, timeZone: WallClock.Zone) -> [String] {
        var lines = [place]
        var weather: [String] = []
        let unit = HumanFormat.temperatureUnit(units)
        let condition = [value(of: .symbol, at: now), value(of: .description, at: now)].compactMap { $0 }.joined(separator: " ")
        if !condition.isEmpty { weather.append(condition) }
        if let t = current("temperature", at: now)?.doubleValue {
            var temperature = "\(HumanFormat.fixed(t, 1)) \(unit)"
            if let feels = current("feels_like", at: now)?.doubleValue {
                temperature += " (feels like \(HumanFormat.fixed(feels, 1)) \(unit))"
            }
            weather.append(temperature)
        }
        if !weather.isEmpty { lines.append(weather.joined(separator: ", ")) }
        var details: [String] = []
        if let humidity = value(of: .humidity, at: now) { details.append("humidity \(humidity)") }
        if let wind = value(of: .wind, at: now) {
            let deg = current("wind_deg", at: now)?.doubleValue
            details.append("wind \(wind)" + (deg.map { " " + HumanFormat.compassPoint($0) } ?? ""))
        }
        if !details.isEmpty { lines.append(details.joined(separator: "  ")) }
        if let aqi = airQualityIndex {
            let scale = properties["air_quality"]?["scale"]?.stringValue ?? Self.defaultAQIScale
            lines.append("air quality \(aqi) (\(scale == "us" ? "US AQI" : "European AQI"))")
        }
        let next = upcoming(at: now).prefix(6)
        if !next.isEmpty {
            for step in next {
                var parts: [String] = []
                let at = step["at"]?.stringValue.flatMap(Timestamp.parse)
                parts.append(at.flatMap { WallClock($0, in: timeZone)?.hourAndMinute } ?? "?")
                parts.append(step["symbol"]?.stringValue ?? " ")
                parts.append(step["temperature"]?.doubleValue.map { "\(HumanFormat.fixed($0, 0, width: 3)) \(unit)" } ?? "  – \(unit)")
                if let pop = step["pop"]?.doubleValue { parts.append("\(HumanFormat.fixed(pop * 100, 0, width: 3))%") }
                if let description = step["description"]?.stringValue { parts.append(description) }
                lines.append(parts.joined(separator: "  "))
            }
        }
        for alert in alerts {
            let severity = alert["severity"]?.stringValue ?? "Unknown"
            let event = alert["event"]?.stringValue ?? "alert"
            var line = "⚠ \(severity): \(event)"
            if let headline = alert["headline"]?.stringValue, !headline.isEmpty { line += " — \(headline)" }
            lines.append(line)
        }
        if properties["alerts_stale"]?.boolValue == true { lines.append("(the alerts could not be refreshed)") }
        if let credit = HumanFormat.attribution([feature] + [forecast].compactMap { $0 }) { lines.append(credit) }
        if isStale { lines.append("(not refreshed: the last lookup failed)") }
        return lines
    }
}

extension JSONValue {
    /// An alert's rank in `BarWeather.severities` (0 for an unknown severity).
    fileprivate var severityRank: Int {
        BarWeather.severities.firstIndex(of: self["severity"]?.stringValue ?? "") ?? 0
    }
}
