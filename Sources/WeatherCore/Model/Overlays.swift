/// The overlays: a GeoJSON FeatureCollection with the foreign members `seq` and `focus`.
public struct Overlays: Sendable, Hashable, JSONRepresentable {
    /// Grows by one per change.
    public var seq: Int
    /// Where the map should centre, for text and location results; nil otherwise.
    public var focus: Coordinate?
    public var features: [WeatherFeature]
    /// The areas of the alerts in force at the places of `features`, after them in the collection.
    public var areas: [AlertAreaFeature]

    public init(seq: Int, focus: Coordinate?, features: [WeatherFeature], areas: [AlertAreaFeature] = []) {
        self.seq = seq
        self.focus = focus
        self.features = features
        self.areas = areas
    }

    public var json: JSONValue {
        .object([
            "type": "FeatureCollection", "seq": .integer(Int64(seq)),
            "focus": focus?.geoJSONPosition ?? .null, "features": .array(features.map(\.json) + areas.map(\.json)),
        ])
    }
}
