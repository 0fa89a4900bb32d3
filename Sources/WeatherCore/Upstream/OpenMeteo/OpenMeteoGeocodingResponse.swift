/// Reads the answers of Open-Meteo's geocoding API (`/v1/search`): an object whose `results` are the
/// places, best first (`id` a GeoNames id, `name`, `latitude`, `longitude`, `country_code`, `admin1`
/// the state or region, …). A name it does not know has no `results` member at all.
public enum OpenMeteoGeocodingResponse {
    /// What a body says, before its HTTP status is taken into account.
    public enum Body: Sendable, Equatable {
        /// The places, each with the region it is in (`admin1`) and its country's name (`country`), for
        /// filtering by what a query names; empty for an unknown name.
        case places([Found])
        /// An error body, `{"error": true, "reason": "…"}`.
        case error(reason: String?)
    }

    /// One place of an answer: the place, and the country's name as the answer writes it.
    public struct Found: Sendable, Equatable {
        public var place: Place
        /// The country's name (`The Netherlands`), in the language asked.
        public var countryName: String?

        public init(place: Place, countryName: String? = nil) {
            self.place = place
            self.countryName = countryName
        }
    }

    /// Decodes a body; nil when it is not a JSON object, or its `results` is not an array. Entries
    /// without a name or a valid position are skipped.
    public static func decode(_ bytes: [UInt8]) -> Body? {
        guard let json = try? JSONValue.parse(bytes), let object = json.objectValue else { return nil }
        if object["error"]?.boolValue == true { return .error(reason: object["reason"]?.stringValue) }
        guard let results = object["results"], !results.isNull else { return .places([]) }
        guard let entries = results.arrayValue else { return nil }
        return .places(entries.compactMap(found))
    }

    private static func found(_ entry: JSONValue) -> Found? {
        guard let object = entry.objectValue, let name = object["name"]?.stringValue, !name.isEmpty,
            let lat = object["latitude"]?.doubleValue, let lon = object["longitude"]?.doubleValue
        else { return nil }
        let coordinate = Coordinate(lat: lat, lon: lon)
        guard coordinate.isValid else { return nil }
        func text(_ key: String) -> String? { object[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        let place = Place(
            name: name, state: text("admin1"), country: text("country_code")?.uppercased(), coordinate: coordinate,
            provider: WeatherProviderName.openMeteo.rawValue, geonamesID: object["id"]?.intValue)
        return Found(place: place, countryName: text("country"))
    }
}
