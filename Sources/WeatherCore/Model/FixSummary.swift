/// The gpsd fix a location result was looked up for (`properties.fix`).
public struct FixSummary: Sendable, Hashable {
    public var coordinate: Coordinate
    public var horizontalError: Double
    public var mode: Int

    public init(coordinate: Coordinate, horizontalError: Double, mode: Int) {
        self.coordinate = coordinate
        self.horizontalError = horizontalError
        self.mode = mode
    }

    public var json: JSONValue {
        .object([
            "lat": .double(coordinate.lat), "lon": .double(coordinate.lon),
            "horizontal_error": .double(horizontalError), "mode": .integer(Int64(mode)),
        ])
    }
}

extension FixSummary {
    public init(_ fix: GPSFix) {
        self.init(coordinate: fix.coordinate, horizontalError: fix.horizontalError, mode: fix.mode)
    }
}
