import WeatherCore

/// One recorded OpenWeatherMap response: the parsed body and the units it was recorded in.
struct RecordedWeather: Sendable {
    let file: String
    let units: Units
    let body: JSONObject

    var name: String { body["name"]?.stringValue ?? "" }
    var country: String? { body["sys"]?["country"]?.stringValue }
    var latitude: Double? { body["coord"]?["lat"]?.doubleValue }
    var longitude: Double? { body["coord"]?["lon"]?.doubleValue }

    /// The body in `target` units: temperatures and wind speeds converted and rounded to 2 decimals,
    /// every other member unchanged and in its place. A body already in `target` units is returned
    /// as read (written out, its numbers take their shortest form: `1.50` as `1.5`, `2.0` as `2`).
    func body(in target: Units) -> JSONObject {
        guard target != units else { return body }
        var converted = body
        convert(&converted, "main", ["temp", "feels_like", "temp_min", "temp_max"]) {
            target.temperature(fromCelsius: units.celsius(from: $0))
        }
        convert(&converted, "wind", ["speed", "gust"]) {
            target.speed(fromMetresPerSecond: units.metresPerSecond(from: $0))
        }
        return converted
    }

    /// Replaces the numeric `fields` of the object member `key` (those present) with
    /// `conversion` of their value, rounded to 2 decimals; members keep their places.
    private func convert(
        _ object: inout JSONObject,
        _ key: String,
        _ fields: [String],
        _ conversion: (Double) -> Double
    ) {
        guard var member = object[key]?.objectValue else { return }
        for field in fields {
            guard let number = member[field]?.doubleValue else { continue }
            member[field] = .rounded(conversion(number))
        }
        object[key] = .object(member)
    }
}
