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
