#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads OpenWeatherMap's 5 day / 3 hour forecast bodies (`/data/2.5/forecast`): `cod` as a string
/// (as it comes) or a number, the place in `city`, the steps in `list`, each with `main`, `weather`,
/// `wind`, `clouds`, `pop`, and `rain.3h` / `snow.3h` only when there is some.
public enum OpenWeatherMapForecastResponse {
    /// What a body says, before its HTTP status is taken into account.
    public enum Body: Sendable, Equatable {
        case forecast(WeatherForecast)
        /// An error body: its `cod` and `message` when present.
        case error(code: Int?, message: String?)
    }

    /// Decodes a body; nil when it is not JSON or not an object. Steps without a `dt` are left out.
    public static func decode(_ bytes: [UInt8], units: Units) -> Body? {
        guard let json = try? JSONValue.parse(bytes), let object = json.objectValue else { return nil }
        let cod = object["cod"].flatMap(Self.code)
        if let cod, cod != 200 {
            return .error(code: cod, message: object["message"]?.stringValue)
        }
        guard let city = object["city"]?.objectValue, let coord = city["coord"]?.objectValue,
            let lat = coord["lat"]?.doubleValue, let lon = coord["lon"]?.doubleValue,
            let list = object["list"]?.arrayValue
        else {
            return .error(code: cod, message: object["message"]?.stringValue)
        }
        let place = WeatherObservation(
            cityID: city["id"]?.intValue.flatMap { $0 == 0 ? nil : $0 },
            name: city["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            country: city["country"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            coordinate: Coordinate(lat: lat, lon: lon), units: units)
        let steps = list.compactMap { entry -> ForecastStep? in
            guard let step = entry.objectValue, let dt = step["dt"]?.doubleValue else { return nil }
            let main = step["main"]?.objectValue
            let wind = step["wind"]?.objectValue
            let primary = step["weather"]?.arrayValue?.first?.objectValue
            return ForecastStep(
                at: Date(timeIntervalSince1970: dt),
                temperature: main?["temp"]?.doubleValue, feelsLike: main?["feels_like"]?.doubleValue,
                tempMin: main?["temp_min"]?.doubleValue, tempMax: main?["temp_max"]?.doubleValue,
                humidity: main?["humidity"]?.doubleValue, pressure: main?["pressure"]?.doubleValue,
                windSpeed: wind?["speed"]?.doubleValue, windDeg: wind?["deg"]?.doubleValue,
                clouds: step["clouds"]?["all"]?.doubleValue, pop: step["pop"]?.doubleValue,
                rain3h: step["rain"]?["3h"]?.doubleValue, snow3h: step["snow"]?["3h"]?.doubleValue,
                condition: primary?["main"]?.stringValue, conditionDescription: primary?["description"]?.stringValue,
                icon: primary?["icon"]?.stringValue)
        }
        return .forecast(WeatherForecast(place: place, steps: steps))
    }

    private static func code(_ value: JSONValue) -> Int? {
        if let i = value.intValue { return i }
        if let s = value.stringValue { return Int(s.trimmingWhitespace()) }
        return nil
    }
}
