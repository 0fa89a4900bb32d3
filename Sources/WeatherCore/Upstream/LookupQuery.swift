/// What the search stream asks for: the weather (or forecast) of a named city, of a place a client
/// picked, or at a point.
public enum LookupQuery: Sendable, Hashable, CustomStringConvertible {
    /// A name, resolved to places by a geocoder first; the first place is looked up.
    case city(String)
    /// A place as given (from `places`): looked up by its coordinates, without geocoding.
    case place(Place)
    case coordinate(Coordinate)

    public var description: String {
        switch self {
        case .city(let name): "city \(name)"
        case .place(let place): "place \(place.label) (\(place.coordinate))"
        case .coordinate(let c): "point \(c)"
        }
    }
}

extension Coordinate {
    /// The cache and single-flight key of the weather at this point: rounded to 0.01°.
    public var lookupKey: LookupKey {
        .point(lat: Int((lat * 100).rounded()), lon: Int((lon * 100).rounded()))
    }
}
