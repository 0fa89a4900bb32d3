/// What the daemon asks OpenWeatherMap for: the weather at a named city or at a point.
public enum LookupQuery: Sendable, Hashable, CustomStringConvertible {
    case city(String)
    case coordinate(Coordinate)

    /// The cache and single-flight key: city names case- and space-insensitive, points to 0.01°.
    public var key: LookupKey {
        switch self {
        case .city(let name): .city(LookupKey.normalize(city: name))
        case .coordinate(let c): .point(lat: Int((c.lat * 100).rounded()), lon: Int((c.lon * 100).rounded()))
        }
    }

    public var description: String {
        switch self {
        case .city(let name): "city \(name)"
        case .coordinate(let c): "point \(c)"
        }
    }
}
