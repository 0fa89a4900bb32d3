#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An accepted or last-seen gpsd fix, as `state.gps.last_fix` shows it.
public struct GPSFix: Sendable, Hashable {
    public var coordinate: Coordinate
    public var horizontalError: Double
    public var mode: Int
    public var at: Date

    public init(coordinate: Coordinate, horizontalError: Double, mode: Int, at: Date) {
        self.coordinate = coordinate
        self.horizontalError = horizontalError
        self.mode = mode
        self.at = at
    }

    public var json: JSONValue {
        .object([
            "lat": .double(coordinate.lat), "lon": .double(coordinate.lon),
            "horizontal_error": .double(horizontalError), "mode": .integer(Int64(mode)),
            "at": .string(Timestamp.iso8601(at)),
        ])
    }
}
