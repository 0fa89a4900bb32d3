#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One position from a source of location, as the fused location takes it (`state.location`).
public struct LocationFix: Sendable, Hashable {
    /// Where a fix came from, as `state.location.source` names it.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        case gpsd
        case owntracks
        case geoclue
        /// `location.report` with `source: "browser"` (the map page).
        case browser
        /// `location.report` from any other client.
        case client

        /// The kind it counts as for fusion, `locate` and the metrics: `browser` is a `client`.
        public var kind: LocationSourceKind {
            switch self {
            case .gpsd: .gpsd
            case .owntracks: .owntracks
            case .geoclue: .geoclue
            case .browser, .client: .client
            }
        }
    }

    public var coordinate: Coordinate
    /// Metres.
    public var horizontalError: Double
    /// When the fix was taken: its own time (gpsd's are dated on arrival).
    public var at: Date
    public var source: Source
    /// The OwnTracks device, `USER/DEVICE`; nil for every other source.
    public var device: String?
    /// gpsd's fix mode (2 or 3); nil where the source has none.
    public var mode: Int?

    public init(
        coordinate: Coordinate, horizontalError: Double, at: Date, source: Source, device: String? = nil, mode: Int? = nil
    ) {
        self.coordinate = coordinate
        self.horizontalError = horizontalError
        self.at = at
        self.source = source
        self.device = device
        self.mode = mode
    }

    /// An accepted gpsd fix.
    public init(_ fix: GPSFix) {
        self.init(coordinate: fix.coordinate, horizontalError: fix.horizontalError, at: fix.at, source: .gpsd, mode: fix.mode)
    }

    /// `state.location`: `{"source","lat","lon","horizontal_error","at","device"?}`.
    public var json: JSONValue {
        var object: JSONObject = [
            "source": .string(source.rawValue), "lat": .double(coordinate.lat), "lon": .double(coordinate.lon),
            "horizontal_error": .double(horizontalError), "at": .string(Timestamp.iso8601(at)),
        ]
        if let device { object["device"] = .string(device) }
        return .object(object)
    }
}

/// A kind of location source: one entry of `state.location_sources`, one `source` of `locate` and
/// of `weatherd_location_fixes_total`.
public enum LocationSourceKind: String, Sendable, Hashable, CaseIterable {
    case gpsd
    case owntracks
    case geoclue
    case client
}

/// What the daemon knows of one kind of source (an entry of `state.location_sources`).
public struct LocationSourceStatus: Sendable, Hashable {
    public var kind: LocationSourceKind
    public var enabled: Bool
    /// gpsd: its socket; OwnTracks: the subscription or HTTP mode is active; GeoClue: its client
    /// started; client: always.
    public var connected: Bool
    /// The time of its latest fix within its limit.
    public var lastFixAt: Date?

    public init(kind: LocationSourceKind, enabled: Bool, connected: Bool, lastFixAt: Date? = nil) {
        self.kind = kind
        self.enabled = enabled
        self.connected = connected
        self.lastFixAt = lastFixAt
    }

    public var json: JSONValue {
        .object([
            "name": .string(kind.rawValue), "enabled": .bool(enabled), "connected": .bool(connected),
            "last_fix_at": lastFixAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ])
    }
}
