/// The area an alert covers: a GeoJSON Polygon or MultiPolygon, its coordinates as the provider
/// gave them (checked to be rings of `[lon, lat]` positions).
public struct AlertArea: Sendable, Hashable {
    /// Each polygon's rings (the outer ring first), each ring its `[lon, lat]` positions.
    public var polygons: [[[Coordinate]]]

    public init(polygons: [[[Coordinate]]]) {
        self.polygons = polygons
    }

    /// Reads a GeoJSON geometry; nil for `null`, another type, or coordinates that are not rings
    /// of at least four valid positions.
    public init?(geoJSON geometry: JSONValue?) {
        guard let geometry = geometry?.objectValue, let type = geometry["type"]?.stringValue,
            let coordinates = geometry["coordinates"]?.arrayValue
        else { return nil }
        let polygons: [JSONValue]
        switch type {
        case "Polygon": polygons = [.array(coordinates)]
        case "MultiPolygon": polygons = coordinates
        default: return nil
        }
        var read: [[[Coordinate]]] = []
        for polygon in polygons {
            guard let rings = polygon.arrayValue, !rings.isEmpty else { return nil }
            var polygonRings: [[Coordinate]] = []
            for ring in rings {
                guard let positions = ring.arrayValue, positions.count >= 4 else { return nil }
                var points: [Coordinate] = []
                for position in positions {
                    guard let pair = position.arrayValue, pair.count >= 2, let lon = pair[0].doubleValue,
                        let lat = pair[1].doubleValue
                    else { return nil }
                    let point = Coordinate(lat: lat, lon: lon)
                    guard point.isValid else { return nil }
                    points.append(point)
                }
                polygonRings.append(points)
            }
            read.append(polygonRings)
        }
        guard !read.isEmpty else { return nil }
        self.polygons = read
    }

    /// Several areas as one (a zone-based alert's zones): nil when there are none.
    public init?(merging areas: [AlertArea]) {
        let polygons = areas.flatMap(\.polygons)
        guard !polygons.isEmpty else { return nil }
        self.polygons = polygons
    }

    /// The GeoJSON geometry: a Polygon for one polygon, else a MultiPolygon.
    public var json: JSONValue {
        let polygons = polygons.map { rings in JSONValue.array(rings.map { ring in .array(ring.map(\.geoJSONPosition)) }) }
        if polygons.count == 1 { return .object(["type": "Polygon", "coordinates": polygons[0]]) }
        return .object(["type": "MultiPolygon", "coordinates": .array(polygons)])
    }

    /// Whether `point` is inside the area (in an outer ring and in none of its holes).
    public func contains(_ point: Coordinate) -> Bool {
        polygons.contains { rings in
            guard let outer = rings.first, Self.ring(outer, contains: point) else { return false }
            return !rings.dropFirst().contains { Self.ring($0, contains: point) }
        }
    }

    /// Even-odd ray casting in the plane of longitude and latitude.
    static func ring(_ ring: [Coordinate], contains point: Coordinate) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i]
            let b = ring[j]
            if (a.lat > point.lat) != (b.lat > point.lat),
                point.lon < (b.lon - a.lon) * (point.lat - a.lat) / (b.lat - a.lat) + a.lon
            {
                inside.toggle()
            }
            j = i
        }
        return inside
    }
}
