import WeatherRPC

/// `weatherctl`'s human output: one line per result.
enum HumanFormat {
    /// `London, GB  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s`
    static func feature(_ json: JSONValue) -> String {
        let p = json["properties"] ?? .null
        let units = Units(rawValue: p["units"]?.stringValue ?? "") ?? .metric
        var parts = [place(json)]
        if let t = p["temperature"]?.doubleValue {
            parts.append("\(fixed(t, 1)) \(temperatureUnit(units))")
        }
        let condition = [p["symbol"]?.stringValue, p["description"]?.stringValue ?? p["condition"]?.stringValue]
            .compactMap { $0 }.joined(separator: " ")
        if !condition.isEmpty { parts.append(condition) }
        if let h = p["humidity"]?.doubleValue { parts.append("humidity \(fixed(h, 0))%") }
        if let w = p["wind_speed"]?.doubleValue {
            parts.append("wind \(fixed(w, 1)) \(speedUnit(units))")
        }
        return parts.joined(separator: "  ")
    }

    /// `air quality 44 moderate (European AQI)`: the line under a feature's that says its air quality,
    /// on the scale it says is shown (`air-quality.scale`; else the European one), with its band in
    /// words (``AirQualityBand``); nil when it has none.
    static func airQuality(_ feature: JSONValue) -> String? {
        guard let quality = AirQuality(json: feature["properties"]?["air_quality"]) else { return nil }
        let scale = quality.scale ?? .european
        guard let index = quality.index(scale) else { return nil }
        let band = quality.band(scale).map { " " + $0.name } ?? ""
        return "air quality \(fixed(index, 0))\(band) (\(scale == .us ? "US AQI" : "European AQI"))"
    }

    /// The place, then one line per step: time (in `timeZone`), symbol, temperature, precipitation
    /// probability, wind, description:
    /// ```
    /// Paris, FR
    /// Sat 01 Dec 00:00  🌧    6.7 °C  precip  35%  wind  3.8 m/s SW  light rain
    /// ```
    static func forecast(_ json: JSONValue, timeZone: WallClock.Zone = .local) -> [String] {
        let p = json["properties"] ?? .null
        let units = Units(rawValue: p["units"]?.stringValue ?? "") ?? .metric
        var lines = [place(json)]
        for step in p["forecast"]?.arrayValue ?? [] {
            var parts: [String] = []
            let at = step["at"]?.stringValue
            parts.append(at.flatMap { WallClock.dayAndTime($0, in: timeZone) } ?? at ?? "?")
            parts.append(step["symbol"]?.stringValue ?? " ")
            parts.append(
                step["temperature"]?.doubleValue.map {
                    "\(fixed($0, 1, width: 6)) \(temperatureUnit(units))"
                } ?? "     – \(temperatureUnit(units))")
            parts.append(step["pop"]?.doubleValue.map { "precip \(fixed($0 * 100, 0, width: 3))%" } ?? "precip    –")
            if let w = step["wind_speed"]?.doubleValue {
                var wind = "wind \(fixed(w, 1, width: 4)) \(speedUnit(units))"
                if let deg = step["wind_deg"]?.doubleValue { wind += " " + compassPoint(deg) }
                parts.append(wind)
            }
            if let description = step["description"]?.stringValue ?? step["condition"]?.stringValue { parts.append(description) }
            lines.append(parts.joined(separator: "  "))
        }
        return lines
    }

    /// `value` as printf's `%*.*f` writes it (``DecimalText``).
    static func fixed(_ value: Double, _ places: Int, width: Int = 0) -> String {
        DecimalText.fixed(value, places, width: width)
    }

    /// `mph` or `m/s`.
    static func speedUnit(_ units: Units) -> String {
        units == .imperial ? "mph" : "m/s"
    }

    /// `K`, `°F` or `°C`.
    static func temperatureUnit(_ units: Units) -> String {
        switch units {
        case .standard: "K"
        case .imperial: "°F"
        case .metric: "°C"
        }
    }

    /// Where the wind comes from, of 8 points: 225° → `SW`.
    static func compassPoint(_ degrees: Double) -> String {
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let index = Int(((degrees.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45).rounded(.down)) % 8
        return points[index]
    }

    /// `Springfield, Illinois, US`: a place's or a feature's name, state and country where known.
    static func label(_ p: JSONValue) -> String {
        ["name", "state", "country"].compactMap { p[$0]?.stringValue }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// `Springfield, Illinois, US  39.80, -89.64`: one place of `places`.
    static func place(listed json: JSONValue) -> String {
        let lat = json["lat"]?.doubleValue.map { fixed($0, 2) } ?? "?"
        let lon = json["lon"]?.doubleValue.map { fixed($0, 2) } ?? "?"
        return "\(label(json))  \(lat), \(lon)"
    }

    /// `(4 more places named Springfield: weatherctl places Springfield)` when the name `searched`
    /// matched other places than the feature's; nil when it matched one.
    static func alternativesHint(_ json: JSONValue, searched: String) -> String? {
        let p = json["properties"] ?? .null
        guard let others = p["alternatives"]?.intValue, others > 0 else { return nil }
        let name = p["name"]?.stringValue ?? searched
        return "(\(others) more place\(others == 1 ? "" : "s") named \(name): weatherctl places \(shellWord(searched)))"
    }

    /// `word` as a shell reads it back: quoted when it holds anything but letters, digits and `-._,`.
    static func shellWord(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._,".unicodeScalars.contains($0)
            }
        return plain ? word : "'" + word.replacing("'", with: #"'\''"#) + "'"
    }

    /// `Paris, FR`, or the coordinates of a point without a name.
    static func place(_ json: JSONValue) -> String {
        var place = label(json["properties"] ?? .null)
        if place.isEmpty, let position = json["geometry"]?["coordinates"]?.arrayValue,
            position.count == 2, let lon = position[0].doubleValue, let lat = position[1].doubleValue
        {
            place = "\(fixed(lat, 4)), \(fixed(lon, 4))"
        }
        return place
    }

    /// `from owntracks alice/phone  ±12 m`: where a located feature's fix came from; nil without a fix.
    static func fixSource(_ json: JSONValue) -> String? {
        guard let fix = json["properties"]?["fix"], let source = fix["source"]?.stringValue else { return nil }
        var line = "from " + ([source] + [fix["device"]?.stringValue].compactMap { $0 }).joined(separator: " ")
        if let error = fix["horizontal_error"]?.doubleValue { line += "  ±\(fixed(error, 0)) m" }
        return line
    }

    /// The credit Open-Meteo's terms ask for wherever its data is shown (CC BY 4.0).
    static let openMeteoCredit = "Weather data by Open-Meteo.com (CC BY 4.0)"

    /// The credit lines for what is shown of `features` (Features or forecasts), once each: Open-Meteo's
    /// for its weather, CAMS's for air quality; nil when nothing shown asks for one.
    static func attribution(_ features: [JSONValue]) -> String? {
        var credits: [String] = []
        if features.contains(where: { $0["properties"]?["provider"]?.stringValue == WeatherProviderName.openMeteo.rawValue }) {
            credits.append(openMeteoCredit)
        }
        if features.contains(where: { AirQuality(json: $0["properties"]?["air_quality"]) != nil }) {
            credits.append(AirQuality.attribution)
        }
        return credits.isEmpty ? nil : credits.joined(separator: "\n")
    }

    /// `feature`'s lines followed by the credit its provider asks for, if any.
    static func credited(_ lines: [String], for feature: JSONValue) -> String {
        (lines + [attribution([feature])].compactMap { $0 }).joined(separator: "\n")
    }

    /// `running  phase populated  input text "Seoul"  pending 1  gps enabled, not connected`
    static func state(_ json: JSONValue) -> String {
        var parts = [json["running"]?.boolValue == true ? "running" : "idle"]
        parts.append("phase \(json["phase"]?.stringValue ?? "?")")
        if let input = json["input"], !input.isNull {
            switch input["kind"]?.stringValue {
            case "text": parts.append("input text \"\(input["city"]?.stringValue ?? "")\"")
            case "location":
                parts.append("input location \(fixed(input["lat"]?.doubleValue ?? 0, 4)),\(fixed(input["lon"]?.doubleValue ?? 0, 4))")
            case "region":
                let c = input["center"]
                parts.append("input region \(fixed(c?["lat"]?.doubleValue ?? 0, 4)),\(fixed(c?["lon"]?.doubleValue ?? 0, 4))")
            case let kind?: parts.append("input \(kind)")
            case nil: break
            }
        }
        parts.append("pending \(json["pending"]?.intValue ?? 0)")
        if let gps = json["gps"] {
            if gps["enabled"]?.boolValue == true {
                parts.append(gps["connected"]?.boolValue == true ? "gps connected" : "gps not connected")
            } else {
                parts.append("gps disabled")
            }
        }
        if let budget = json["budget"], let limit = budget["requests_per_minute"]?.intValue {
            parts.append("budget \(budget["used"]?.intValue ?? 0)/\(limit) a minute")
            if let until = budget["blocked_until"]?.stringValue { parts.append("blocked until \(until)") }
        }
        if let providers = json["providers"]?.arrayValue, !providers.isEmpty {
            let each = providers.map { provider in
                let name = provider["name"]?.stringValue ?? "?"
                // A stand-in's answers (the offline demo): not real weather.
                let sample = provider["sample_data"]?.boolValue == true ? " (sample data)" : ""
                if provider["usable"]?.boolValue == true { return "\(name) ok\(sample)" }
                let why =
                    provider["blocked_until"]?.stringValue.map { "blocked until \($0)" }
                    ?? provider["error"]?.stringValue ?? "not usable"
                return "\(name) (\(why))\(sample)"
            }
            parts.append("providers " + each.joined(separator: ", "))
        }
        if let error = json["error"], !error.isNull {
            parts.append("error \(error["code"]?.intValue ?? 0): \(error["message"]?.stringValue ?? "")")
        }
        return parts.joined(separator: "  ")
    }
}

extension HumanFormat {
    /// The NWS's credit, under alerts it gave.
    static let nwsCredit = "Alerts: US National Weather Service (weather.gov)"

    /// The `alerts` method's result: per alert its severity, event and until when (in `timeZone`),
    /// then its instruction indented; a line saying there are none, or that no alert provider covers
    /// the place; the credit of the providers shown.
    /// ```
    /// Severe  Severe Thunderstorm Warning  until Thu 21 May 03:30
    ///   For your protection move to an interior room on the lowest floor of a building.
    /// ```
    static func alerts(_ json: JSONValue, timeZone: WallClock.Zone = .local) -> [String] {
        guard let alerts = json["alerts"]?.arrayValue else {
            return ["no alert provider covers this place (the NWS: the United States)"]
        }
        guard !alerts.isEmpty else { return ["no alerts in force"] }
        var lines: [String] = []
        for alert in alerts {
            var parts = [alert["severity"]?.stringValue ?? "Unknown", alert["event"]?.stringValue ?? "alert"]
            if let ends = alert["ends"]?.stringValue {
                parts.append("until " + (WallClock.dayAndTime(ends, in: timeZone) ?? ends))
            }
            lines.append(parts.joined(separator: "  "))
            for line in (alert["instruction"]?.stringValue ?? "").split(whereSeparator: \.isNewline) {
                lines.append("  " + line.trimmingSpaces)
            }
        }
        if alerts.contains(where: { $0["provider"]?.stringValue == "nws" }) { lines.append(nwsCredit) }
        return lines
    }
}
