/// The points a region search looks up: the centres of an equal grid of `(2·around+1)²` cells
/// over the region, the region's centre first.
public enum RegionGrid {
    /// The span of a region sent without one: 3° × 3°.
    public static let defaultSpan = Coordinate(lat: 3, lon: 3)

    /// One grid point and the source its feature gets.
    public struct Point: Sendable, Hashable {
        public var coordinate: Coordinate
        public var source: FeatureSource
    }

    /// The grid of `region` with radius `around` (0 = the centre only). Latitudes are clamped
    /// to [-90, 90]; longitudes wrap around the antimeridian into [-180, 180].
    public static func points(of region: MapRegion, around: Int) -> [Point] {
        let span = region.span ?? defaultSpan
        let n = 2 * around + 1
        let cellLat = span.lat / Double(n)
        let cellLon = span.lon / Double(n)
        var points: [Point] = []
        points.reserveCapacity(n * n)
        for row in 0..<n {
            for column in 0..<n where !(row == around && column == around) {
                let lat = region.center.lat + Double(row - around) * cellLat
                let lon = region.center.lon + Double(column - around) * cellLon
                points.append(Point(coordinate: Coordinate(lat: min(90, max(-90, lat)), lon: wrap(lon)), source: .around))
            }
        }
        return [Point(coordinate: region.center, source: .region)] + points
    }

    /// Longitude into [-180, 180].
    static func wrap(_ lon: Double) -> Double {
        guard lon < -180 || lon > 180 else { return lon }
        var wrapped = (lon + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped - 180
    }

    /// Whether `next` is close enough to `last` to be ignored: its centre moved less than a
    /// tenth of its span on both axes.
    public static func isNegligibleMove(from last: MapRegion, to next: MapRegion) -> Bool {
        let span = next.span ?? defaultSpan
        let dLat = abs(next.center.lat - last.center.lat)
        var dLon = abs(next.center.lon - last.center.lon)
        if dLon > 180 { dLon = 360 - dLon }
        return dLat < span.lat / 10 && dLon < span.lon / 10
    }
}

extension MapRegion {
    /// Checks a region from a client: latitude in [-90, 90], longitude in [-180, 180], span in (0, 180].
    public func validated() throws(WeatherError) -> MapRegion {
        guard center.lat.isFinite, (-90...90).contains(center.lat) else {
            throw .invalidParams("invalid params: center.lat must be within [-90, 90]")
        }
        guard center.lon.isFinite, (-180...180).contains(center.lon) else {
            throw .invalidParams("invalid params: center.lon must be within [-180, 180]")
        }
        if let span {
            guard span.lat.isFinite, span.lat > 0, span.lat <= 180, span.lon.isFinite, span.lon > 0, span.lon <= 180 else {
                throw .invalidParams("invalid params: span.lat and span.lon must be within (0, 180]")
            }
        }
        return self
    }
}
