#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads OpenWeatherMap's current-weather bodies as they really come: `cod` as a number or a
/// string, `null` objects, missing fields, several `weather` entries, no `timezone`.
public enum OpenWeatherMapResponse {
    /// What a body says, before its HTTP status is taken into account.
    public enum Body: Sendable, Equatable {
        case weather(WeatherObservation)
        /// An error body: its `cod` and `message` when present.
        case error(code: Int?, message: String?)
    }

    /// Decodes a body; nil when it is not JSON or not an object.
    public static func decode(_ bytes: [UInt8], units: Units) -> Body? {
        guard let json = try? JSONValue.parse(bytes), let object = json.objectValue else { return nil }
        let cod = object["cod"].flatMap(Self.code)
        if let cod, cod != 200 {
            return .error(code: cod, message: object["message"]?.stringValue)
        }
        guard let coord = object["coord"]?.objectValue,
            let lat = coord["lat"]?.doubleValue, let lon = coord["lon"]?.doubleValue
        else {
            return .error(code: cod, message: object["message"]?.stringValue)
        }
        let main = object["main"]?.objectValue
        let wind = object["wind"]?.objectValue
        let primary = object["weather"]?.arrayValue?.first?.objectValue
        let name = object["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let country = object["sys"]?["country"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return .weather(
            WeatherObservation(
                cityID: object["id"]?.intValue.flatMap { $0 == 0 ? nil : $0 },
                name: name, country: country,
                coordinate: Coordinate(lat: lat, lon: lon),
                temperature: main?["temp"]?.doubleValue, feelsLike: main?["feels_like"]?.doubleValue,
                tempMin: main?["temp_min"]?.doubleValue, tempMax: main?["temp_max"]?.doubleValue,
                humidity: main?["humidity"]?.doubleValue, pressure: main?["pressure"]?.doubleValue,
                windSpeed: wind?["speed"]?.doubleValue, windDeg: wind?["deg"]?.doubleValue,
                clouds: object["clouds"]?["all"]?.doubleValue,
                condition: primary?["main"]?.stringValue, conditionDescription: primary?["description"]?.stringValue,
                icon: primary?["icon"]?.stringValue,
                observedAt: object["dt"]?.doubleValue.map { Date(timeIntervalSince1970: $0) },
                units: units
            ))
    }

    private static func code(_ value: JSONValue) -> Int? {
        if let i = value.intValue { return i }
        if let s = value.stringValue { return Int(s.trimmingWhitespace()) }
        return nil
    }
}
