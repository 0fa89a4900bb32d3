/// Reads the answers of OpenWeatherMap's Geocoding API (`/geo/1.0/direct`): a JSON array of places,
/// best first (`name`, `lat`, `lon`, `country`, and `state` where there is one), or an error object.
public enum OpenWeatherMapGeocodingResponse {
    /// What a body says, before its HTTP status is taken into account.
    public enum Body: Sendable, Equatable {
        case places([Place])
        /// An error body: its `cod` and `message` when present.
        case error(code: Int?, message: String?)
    }

    /// Decodes a body; nil when it is not JSON, or neither an array nor an object. Entries of the
    /// array without a name or a valid position are skipped.
    public static func decode(_ bytes: [UInt8]) -> Body? {
        guard let json = try? JSONValue.parse(bytes) else { return nil }
        if let entries = json.arrayValue {
            return .places(entries.compactMap(place))
        }
        guard let object = json.objectValue else { return nil }
        let cod = object["cod"].flatMap { $0.intValue ?? $0.stringValue.flatMap { Int($0) } }
        return .error(code: cod, message: object["message"]?.stringValue)
    }

    private static func place(_ entry: JSONValue) -> Place? {
        guard let object = entry.objectValue, let name = object["name"]?.stringValue, !name.isEmpty,
            let lat = object["lat"]?.doubleValue, let lon = object["lon"]?.doubleValue
        else { return nil }
        let coordinate = Coordinate(lat: lat, lon: lon)
        guard coordinate.isValid else { return nil }
        func text(_ key: String) -> String? { object[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        return Place(name: name, state: text("state"), country: text("country"), coordinate: coordinate, provider: "openweathermap")
    }
}
