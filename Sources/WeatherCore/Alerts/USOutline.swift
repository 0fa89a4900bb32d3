/// A coarse outline of the NWS's area: the United States with its coastal waters, Alaska, Hawaii,
/// Puerto Rico and the Virgin Islands, Guam and the Northern Marianas, American Samoa. Generous at
/// the borders on purpose: a point it takes in that the NWS turns away (a 400 or 404) is learnt per
/// cell and not asked again for a long while (``AlertRefreshState``); a point it leaves out is
/// never asked at all.
public enum USOutline {
    /// The outline's polygons, `[lon, lat]` rings.
    static let area = AlertArea(polygons: [
        // The 48 contiguous states: the Canadian border, the Atlantic and Gulf coasts, the Mexican
        // border, the Pacific coast.
        [
            ring([
                (-124.9, 48.6), (-123.3, 49.0), (-95.15, 49.0), (-95.15, 49.45), (-94.6, 48.75), (-89.4, 48.1),
                (-84.6, 46.6), (-82.4, 45.4), (-82.4, 42.9), (-79.0, 43.5), (-76.3, 44.3), (-74.7, 45.05),
                (-71.5, 45.05), (-70.0, 46.5), (-69.2, 47.5), (-67.7, 47.2), (-66.8, 44.8), (-69.5, 41.0),
                (-75.0, 35.0), (-79.5, 31.5), (-79.9, 27.0), (-80.0, 24.3), (-82.2, 24.3), (-83.2, 27.5),
                (-85.5, 29.4), (-89.2, 28.8), (-94.0, 29.3), (-97.0, 25.9), (-97.5, 25.8), (-99.2, 26.4),
                (-101.4, 29.8), (-103.0, 29.0), (-104.7, 29.9), (-106.5, 31.75), (-108.2, 31.3), (-111.1, 31.3),
                (-114.8, 32.5), (-117.2, 32.5), (-120.6, 34.3), (-122.6, 37.1), (-124.5, 40.3), (-124.9, 48.6),
            ])
        ],
        // Alaska, and the Aleutians on both sides of the antimeridian.
        [box(lat: 51.0...71.6, lon: -180.0 ... -129.9)],
        [box(lat: 51.0...53.6, lon: 172.0...180.0)],
        // Hawaii.
        [box(lat: 18.5...22.6, lon: -160.7 ... -154.4)],
        // Puerto Rico and the US Virgin Islands.
        [box(lat: 17.5...18.8, lon: -67.6 ... -64.3)],
        // Guam and the Northern Mariana Islands.
        [box(lat: 13.0...20.8, lon: 144.4...146.2)],
        // American Samoa.
        [box(lat: -14.7 ... -10.9, lon: -171.3 ... -168.0)],
    ])

    /// Whether `point` is inside the outline.
    public static func contains(_ point: Coordinate) -> Bool {
        area.contains(point)
    }

    private static func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(lat: $0.1, lon: $0.0) }
    }

    private static func box(lat: ClosedRange<Double>, lon: ClosedRange<Double>) -> [Coordinate] {
        ring([
            (lon.lowerBound, lat.lowerBound), (lon.upperBound, lat.lowerBound), (lon.upperBound, lat.upperBound),
            (lon.lowerBound, lat.upperBound), (lon.lowerBound, lat.lowerBound),
        ])
    }
}
