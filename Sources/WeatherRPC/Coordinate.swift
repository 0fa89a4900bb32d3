#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point on the earth in degrees (WGS 84).
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
    public var lat: Double
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// True when latitude is in [-90, 90] and longitude in [-180, 180].
    public var isValid: Bool {
        lat.isFinite && lon.isFinite && (-90...90).contains(lat) && (-180...180).contains(lon)
    }

    /// GeoJSON position order: `[longitude, latitude]` (RFC 7946).
    public var geoJSONPosition: JSONValue { .array([.double(lon), .double(lat)]) }

    /// `{"lat": …, "lon": …}`.
    public var json: JSONValue { .object(["lat": .double(lat), "lon": .double(lon)]) }

    public var description: String { "\(DecimalText.fixed(lat, 4)),\(DecimalText.fixed(lon, 4))" }

    /// Great-circle distance in metres (haversine, mean earth radius).
    public func distance(to other: Coordinate) -> Double {
        let r = 6_371_008.8
        let φ1 = lat * .pi / 180
        let φ2 = other.lat * .pi / 180
        let dφ = (other.lat - lat) * .pi / 180
        let dλ = (other.lon - lon) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
