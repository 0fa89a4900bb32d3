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
        let cell = self.cell
        return .point(lat: cell.lat, lon: cell.lon)
    }

    /// The point's 0.01° cell: latitude and longitude in hundredths of a degree.
    private var cell: (lat: Int, lon: Int) { (Int((lat * 100).rounded()), Int((lon * 100).rounded())) }

    /// The latitude sent upstream: the point's 0.01° cell (``lookupKey``), written with 2 decimals
    /// (`51.51`, `-0.13`, `0.00`, never `-0.00`). Every provider is asked for the cell, never the point
    /// itself: for the users' privacy, and so that a cache in front of the provider (a fleet's proxy)
    /// answers every device near one place with one request.
    public var upstreamLatitude: String { Self.hundredths(cell.lat) }

    /// The longitude sent upstream, as ``upstreamLatitude``.
    public var upstreamLongitude: String { Self.hundredths(cell.lon) }

    /// `5151` → `51.51`, `-13` → `-0.13`, `0` → `0.00`.
    static func hundredths(_ value: Int) -> String {
        let magnitude = value.magnitude
        let fraction = magnitude % 100
        return (value < 0 ? "-" : "") + String(magnitude / 100) + (fraction < 10 ? ".0" : ".") + String(fraction)
    }
}
