import WeatherCore

/// One 5 day / 3 hour forecast body (`/data/2.5/forecast`), recorded or synthesized, and the units
/// it is in.
struct RecordedForecast: Sendable {
    let file: String
    let units: Units
    let body: JSONObject

    var name: String { body["city"]?["name"]?.stringValue ?? "" }
    var country: String? { body["city"]?["country"]?.stringValue }
    var latitude: Double? { body["city"]?["coord"]?["lat"]?.doubleValue }
    var longitude: Double? { body["city"]?["coord"]?["lon"]?.doubleValue }

    /// The body in `target` units: in every step of `list`, temperatures and wind speeds converted
    /// (rounded to 2 decimals) as `RecordedWeather.body(in:)` does; everything else unchanged.
    func body(in target: Units) -> JSONObject {
        guard target != units, let list = body["list"]?.arrayValue else { return body }
        var converted = body
        converted["list"] = .array(
            list.map { step in
                guard let object = step.objectValue else { return step }
                let weather = RecordedWeather(file: file, units: units, body: object)
                return .object(weather.body(in: target))
            })
        return converted
    }
}
