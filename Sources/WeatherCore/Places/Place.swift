/// A named place a geocoder found for a name: where its weather is looked up, and what its feature
/// is called (`name`, `state`, `country`), whatever the nearest weather station is called.
public struct Place: Sendable, Hashable {
    public var name: String
    /// The state or region (`Illinois`, `OH`), nil where the geocoder gave none.
    public var state: String?
    /// The ISO 3166 country code, nil where unknown.
    public var country: String?
    public var coordinate: Coordinate
    /// The geocoder that found it: `openweathermap` or `open-meteo`.
    public var provider: String
    /// The geocoder's own id of the place (a GeoNames id), when it gives one.
    public var geonamesID: Int?

    public init(
        name: String, state: String? = nil, country: String? = nil, coordinate: Coordinate, provider: String, geonamesID: Int? = nil
    ) {
        self.name = name
        self.state = state
        self.country = country
        self.coordinate = coordinate
        self.provider = provider
        self.geonamesID = geonamesID
    }

    /// How many places `places` may be asked for, and how many it answers when not asked.
    public static let limitRange = RPCParamLimits.placesLimit
    public static let defaultLimit = 5

    /// `{"name","state","country","lat","lon","provider"}`: the protocol's Place.
    public var json: JSONValue {
        .object([
            "name": .string(name), "state": .string(state), "country": .string(country),
            "lat": .double(coordinate.lat), "lon": .double(coordinate.lon), "provider": .string(provider),
        ])
    }

    /// The place as stored in the state directory: the protocol's members and the GeoNames id.
    var storedJSON: JSONValue {
        var object = json.objectValue ?? [:]
        if let geonamesID { object["geonames_id"] = .integer(Int64(geonamesID)) }
        return .object(object)
    }

    /// A place from the protocol's Place object (or the stored one); nil when it is not one: `name`
    /// a non-empty string, `lat` within [-90, 90], `lon` within [-180, 180], `state` and `country`
    /// strings or null.
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
            let name = object["name"]?.stringValue, !name.isEmpty, name.count <= 200,
            let lat = object["lat"]?.doubleValue, let lon = object["lon"]?.doubleValue
        else { return nil }
        let coordinate = Coordinate(lat: lat, lon: lon)
        guard coordinate.isValid else { return nil }
        func optionalString(_ key: String) -> String?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return .some(text.isEmpty ? nil : text)
            default: return nil
            }
        }
        guard let state = optionalString("state"), let country = optionalString("country"),
            let provider = optionalString("provider")
        else { return nil }
        self.init(
            name: name, state: state, country: country, coordinate: coordinate, provider: provider ?? "",
            geonamesID: object["geonames_id"]?.intValue)
    }

    /// Whether `other` is the same place as found by another geocoder: the same name and country
    /// (letter case aside) and within 0.1° in latitude and in longitude.
    public func isSame(as other: Place) -> Bool {
        name.lowercased() == other.name.lowercased() && country?.uppercased() == other.country?.uppercased()
            && abs(coordinate.lat - other.coordinate.lat) <= 0.1 && abs(coordinate.lon - other.coordinate.lon) <= 0.1
    }

    /// The places of `first` (one geocoder's, best first), then those of `more` (another's) that are
    /// not the same as one before them (``isSame(as:)``), at most `limit`.
    public static func merged(_ first: [Place], _ more: [Place], limit: Int) -> [Place] {
        var merged: [Place] = []
        for place in first + more where merged.count < limit {
            if !merged.contains(where: { $0.isSame(as: place) }) { merged.append(place) }
        }
        return merged
    }

    /// `Springfield, Illinois, US`: the name with its state and country where known.
    public var label: String {
        ([name] + [state, country].compactMap { $0 }).joined(separator: ", ")
    }
}
