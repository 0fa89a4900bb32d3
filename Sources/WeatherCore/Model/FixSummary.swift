/// The fix a location result was looked up for (`properties.fix`).
public struct FixSummary: Sendable, Hashable {
    public var coordinate: Coordinate
    public var horizontalError: Double
    /// gpsd's fix mode; nil where the source has none.
    public var mode: Int?
    public var source: LocationFix.Source
    /// The OwnTracks device, `USER/DEVICE`.
    public var device: String?

    public init(
        coordinate: Coordinate, horizontalError: Double, mode: Int?, source: LocationFix.Source = .gpsd, device: String? = nil
    ) {
        self.coordinate = coordinate
        self.horizontalError = horizontalError
        self.mode = mode
        self.source = source
        self.device = device
    }

    /// `{"lat","lon","horizontal_error","mode","source","device"?}`.
    public var json: JSONValue {
        var object: JSONObject = [
            "lat": .double(coordinate.lat), "lon": .double(coordinate.lon),
            "horizontal_error": .double(horizontalError), "mode": mode.map { .integer(Int64($0)) } ?? .null,
            "source": .string(source.rawValue),
        ]
        if let device { object["device"] = .string(device) }
        return .object(object)
    }
}

extension FixSummary {
    public init(_ fix: GPSFix) {
        self.init(coordinate: fix.coordinate, horizontalError: fix.horizontalError, mode: fix.mode)
    }

    public init(_ fix: LocationFix) {
        self.init(
            coordinate: fix.coordinate, horizontalError: fix.horizontalError, mode: fix.mode, source: fix.source, device: fix.device)
    }
}
