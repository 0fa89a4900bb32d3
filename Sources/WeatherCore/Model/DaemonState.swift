import Foundation

/// The phase of the latest search (`state.phase`).
public enum SearchPhase: String, Sendable, Hashable {
    case loading, populated, empty, error
}

/// A map region: a centre and an optional span in degrees.
public struct MapRegion: Sendable, Hashable {
    public var center: Coordinate
    /// Latitude and longitude extent in degrees; nil means the default 3° × 3°.
    public var span: Coordinate?

    public init(center: Coordinate, span: Coordinate? = nil) {
        self.center = center
        self.span = span
    }

    public var json: JSONValue {
        var object: JSONObject = ["center": center.json]
        object["span"] = span?.json ?? .null
        return .object(object)
    }
}

/// One input of the search stream (`state.input`).
public enum SearchInput: Sendable, Hashable {
    /// A `search` request for a city name.
    case text(city: String)
    /// A gpsd fix.
    case location(Coordinate)
    /// A map region event.
    case region(MapRegion)
    /// A round of watched-city lookups.
    case cities

    /// Whether this input competes for the overlays' interactive layer (all but city rounds).
    public var isInteractive: Bool { self != .cities }

    public var json: JSONValue {
        switch self {
        case .text(let city): .object(["kind": "text", "city": .string(city)])
        case .location(let c): .object(["kind": "location", "lat": .double(c.lat), "lon": .double(c.lon)])
        case .region(let region):
            .object(["kind": "region", "center": region.center.json, "span": region.span?.json ?? .null])
        case .cities: .object(["kind": "cities"])
        }
    }
}

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

/// What the daemon knows of gpsd (`state.gps`).
public struct GPSStatus: Sendable, Hashable {
    public var enabled: Bool
    public var connected: Bool
    public var lastFix: GPSFix?

    public init(enabled: Bool, connected: Bool = false, lastFix: GPSFix? = nil) {
        self.enabled = enabled
        self.connected = connected
        self.lastFix = lastFix
    }

    public var json: JSONValue {
        .object(["enabled": .bool(enabled), "connected": .bool(connected), "last_fix": lastFix?.json ?? .null])
    }
}

/// The daemon's one explicit state: the activity indicator and the phase of the latest search.
public struct DaemonState: Sendable, Hashable, JSONRepresentable {
    /// Lookups in flight.
    public var pending: Int
    public var phase: SearchPhase
    public var input: SearchInput?
    /// Set exactly when `phase` is `.error`.
    public var error: WeatherError?
    public var gps: GPSStatus
    public var updatedAt: Date

    /// True exactly while lookups are in flight.
    public var running: Bool { pending > 0 }

    public init(pending: Int, phase: SearchPhase, input: SearchInput?, error: WeatherError? = nil, gps: GPSStatus, updatedAt: Date) {
        self.pending = pending
        self.phase = phase
        self.input = input
        self.error = error
        self.gps = gps
        self.updatedAt = updatedAt
    }

    public var json: JSONValue {
        .object([
            "running": .bool(running), "phase": .string(phase.rawValue), "pending": .integer(Int64(pending)),
            "input": input?.json ?? .null,
            "error": error.map { .object(["code": .integer(Int64($0.code.value)), "message": .string($0.message)]) } ?? .null,
            "gps": gps.json, "updated_at": .string(Timestamp.iso8601(updatedAt)),
        ])
    }

    /// Equal but for the time of the change.
    func sameFields(as other: DaemonState) -> Bool {
        var other = other
        other.updatedAt = updatedAt
        return self == other
    }
}

/// The overlays: a GeoJSON FeatureCollection with the foreign members `seq` and `focus`.
public struct Overlays: Sendable, Hashable, JSONRepresentable {
    /// Grows by one per change.
    public var seq: Int
    /// Where the map should centre, for text and location results; nil otherwise.
    public var focus: Coordinate?
    public var features: [WeatherFeature]

    public init(seq: Int, focus: Coordinate?, features: [WeatherFeature]) {
        self.seq = seq
        self.focus = focus
        self.features = features
    }

    public var json: JSONValue {
        .object([
            "type": "FeatureCollection", "seq": .integer(Int64(seq)),
            "focus": focus?.geoJSONPosition ?? .null, "features": .array(features.map(\.json)),
        ])
    }
}
