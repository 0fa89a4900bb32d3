/// The 0.01° cell alerts are asked and kept for: the same rounding as the weather's
/// (``Coordinate/lookupKey``), so a place is never sent upstream more precisely than that.
public struct AlertCell: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Latitude and longitude in hundredths of a degree.
    public let lat: Int
    public let lon: Int

    public init(_ point: Coordinate) {
        guard case .point(let lat, let lon) = point.lookupKey else { preconditionFailure("a point's key is a point") }
        self.lat = lat
        self.lon = lon
    }

    /// The cell's centre.
    public var coordinate: Coordinate { Coordinate(lat: Double(lat) / 100, lon: Double(lon) / 100) }

    /// `LAT,LON` with 2 decimals, as the NWS's `point=` takes it (`35.35,-97.48`).
    public var description: String { Coordinate.hundredths(lat) + "," + Coordinate.hundredths(lon) }

    public static func < (a: AlertCell, b: AlertCell) -> Bool { (a.lat, a.lon) < (b.lat, b.lon) }
}
