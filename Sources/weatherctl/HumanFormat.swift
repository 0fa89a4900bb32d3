import Foundation
import WeatherCore

/// `weatherctl`'s human output: one line per result.
enum HumanFormat {
    /// `London, GB  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s`
    static func feature(_ json: JSONValue) -> String {
        let p = json["properties"] ?? .null
        var place = p["name"]?.stringValue ?? ""
        if let country = p["country"]?.stringValue { place += place.isEmpty ? country : ", \(country)" }
        if place.isEmpty, let position = json["geometry"]?["coordinates"]?.arrayValue,
           position.count == 2, let lon = position[0].doubleValue, let lat = position[1].doubleValue {
            place = String(format: "%.4f, %.4f", lat, lon)
        }
        let units = Units(rawValue: p["units"]?.stringValue ?? "") ?? .metric
        var parts = [place]
        if let t = p["temperature"]?.doubleValue {
            parts.append(String(format: "%.1f %@", t, units == .standard ? "K" : units == .imperial ? "°F" : "°C"))
        }
        let condition = [p["symbol"]?.stringValue, p["description"]?.stringValue ?? p["condition"]?.stringValue]
            .compactMap { $0 }.joined(separator: " ")
        if !condition.isEmpty { parts.append(condition) }
        if let h = p["humidity"]?.doubleValue { parts.append(String(format: "humidity %.0f%%", h)) }
        if let w = p["wind_speed"]?.doubleValue {
            parts.append(String(format: "wind %.1f %@", w, units == .imperial ? "mph" : "m/s"))
        }
        return parts.joined(separator: "  ")
    }

    /// `running  phase populated  input text "Seoul"  pending 1  gps enabled, not connected`
    static func state(_ json: JSONValue) -> String {
        var parts = [json["running"]?.boolValue == true ? "running" : "idle"]
        parts.append("phase \(json["phase"]?.stringValue ?? "?")")
        if let input = json["input"], !input.isNull {
            switch input["kind"]?.stringValue {
            case "text": parts.append("input text \"\(input["city"]?.stringValue ?? "")\"")
            case "location": parts.append(String(format: "input location %.4f,%.4f", input["lat"]?.doubleValue ?? 0, input["lon"]?.doubleValue ?? 0))
            case "region":
                let c = input["center"]
                parts.append(String(format: "input region %.4f,%.4f", c?["lat"]?.doubleValue ?? 0, c?["lon"]?.doubleValue ?? 0))
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
        if let error = json["error"], !error.isNull {
            parts.append("error \(error["code"]?.intValue ?? 0): \(error["message"]?.stringValue ?? "")")
        }
        return parts.joined(separator: "  ")
    }
}
