import Testing

@testable import TestSupport
@testable import WeatherCore

private func region(_ lat: Double, _ lon: Double, span: (lat: Double, lon: Double)? = nil) -> MapRegion {
    MapRegion(center: Coordinate(lat: lat, lon: lon), span: span.map { Coordinate(lat: $0.lat, lon: $0.lon) })
}

/// Whether two coordinates are equal to within `tolerance` degrees on both axes.
private func close(_ a: Coordinate, _ b: Coordinate, tolerance: Double = 1e-9) -> Bool {
    abs(a.lat - b.lat) <= tolerance && abs(a.lon - b.lon) <= tolerance
}

/// The coordinates of `points`, as a set of (lat, lon) rounded to 1e-6° (to compare grids whose
/// cell size is not exact in binary).
private func rounded(_ points: [RegionGrid.Point]) -> Set<[Double]> {
    Set(points.map { [($0.coordinate.lat * 1e6).rounded() / 1e6, ($0.coordinate.lon * 1e6).rounded() / 1e6] })
}

// MARK: - Points

@Suite("RegionGrid: points")
struct RegionGridPointsTests {
    @Test("around 0 is the centre only, with source region")
    func aroundZero() {
        let points = RegionGrid.points(of: region(10, 20), around: 0)
        #expect(points == [RegionGrid.Point(coordinate: Coordinate(lat: 10, lon: 20), source: .region)])
    }

    @Test("around 1 is 9 points: the centres of a 3×3 grid over a 3°×3° region at 10,20 are lats 9,10,11 × lons 19,20,21")
    func aroundOneExactCoordinates() {
        let points = RegionGrid.points(of: region(10, 20, span: (3, 3)), around: 1)
        #expect(points.count == 9)
        let coordinates = Set(points.map { [$0.coordinate.lat, $0.coordinate.lon] })
        var expected = Set<[Double]>()
        for lat in [9.0, 10, 11] { for lon in [19.0, 20, 21] { expected.insert([lat, lon]) } }
        #expect(coordinates == expected)
    }

    @Test("the centre comes first with source region; every other point has source around")
    func centreFirst() {
        let points = RegionGrid.points(of: region(10, 20), around: 1)
        #expect(points.first == RegionGrid.Point(coordinate: Coordinate(lat: 10, lon: 20), source: .region))
        #expect(points.dropFirst().allSatisfy { $0.source == .around })
        #expect(points.filter { $0.source == .region }.count == 1)
    }

    @Test("without a span the grid covers 3° × 3°")
    func defaultSpan() {
        #expect(RegionGrid.defaultSpan == Coordinate(lat: 3, lon: 3))
        #expect(RegionGrid.points(of: region(10, 20), around: 1) == RegionGrid.points(of: region(10, 20, span: (3, 3)), around: 1))
        #expect(RegionGrid.points(of: region(10, 20), around: 2) == RegionGrid.points(of: region(10, 20, span: (3, 3)), around: 2))
    }

    @Test("around 2 is 25 distinct points, the centres of a 5×5 grid (cells of 0.6° for 3°)")
    func aroundTwo() {
        let points = RegionGrid.points(of: region(10, 20), around: 2)
        #expect(points.count == 25)
        var expected = Set<[Double]>()
        for i in -2...2 { for j in -2...2 { expected.insert([10 + Double(i) * 0.6, 20 + Double(j) * 0.6]) } }
        #expect(rounded(points) == Set(expected.map { [($0[0] * 1e6).rounded() / 1e6, ($0[1] * 1e6).rounded() / 1e6] }))
        #expect(points.first?.coordinate == Coordinate(lat: 10, lon: 20))
    }

    @Test("a given span sets the cell size on each axis: 6° × 1.5° at around 1 gives cells of 2° × 0.5°")
    func givenSpan() {
        let points = RegionGrid.points(of: region(-30, 100, span: (6, 1.5)), around: 1)
        let coordinates = Set(points.map { [$0.coordinate.lat, $0.coordinate.lon] })
        var expected = Set<[Double]>()
        for lat in [-32.0, -30, -28] { for lon in [99.5, 100, 100.5] { expected.insert([lat, lon]) } }
        #expect(coordinates == expected)
    }

    @Test("latitudes beyond the poles are clamped to ±90; longitudes stay")
    func clampedAtThePoles() {
        let north = RegionGrid.points(of: region(89.5, 0, span: (3, 3)), around: 1)
        #expect(Set(north.map(\.coordinate.lat)) == [88.5, 89.5, 90])
        #expect(north.filter { $0.coordinate.lat == 90 }.map(\.coordinate.lon).sorted() == [-1, 0, 1])
        let south = RegionGrid.points(of: region(-90, 0, span: (3, 3)), around: 1)
        #expect(Set(south.map(\.coordinate.lat)) == [-90, -89])
        #expect(south.allSatisfy { $0.coordinate.isValid })
    }

    @Test("longitudes across ±180 wrap around the antimeridian")
    func wrapsAcrossTheAntimeridian() {
        let east = RegionGrid.points(of: region(0, 179.5, span: (3, 3)), around: 1)
        #expect(Set(east.map(\.coordinate.lon)) == [178.5, 179.5, -179.5])
        let west = RegionGrid.points(of: region(0, -179.5, span: (3, 3)), around: 1)
        #expect(Set(west.map(\.coordinate.lon)) == [-178.5, -179.5, 179.5])
        let wide = RegionGrid.points(of: region(0, 180, span: (3, 180)), around: 1)
        #expect(Set(wide.map(\.coordinate.lon)) == [-120, 180, 120])
        #expect((east + west + wide).allSatisfy { $0.coordinate.isValid })
    }

    @Test("wrap keeps [-180, 180] as is and folds the rest into it")
    func wrap() {
        #expect(RegionGrid.wrap(180) == 180)
        #expect(RegionGrid.wrap(-180) == -180)
        #expect(RegionGrid.wrap(12.5) == 12.5)
        #expect(close(Coordinate(lat: 0, lon: RegionGrid.wrap(180.5)), Coordinate(lat: 0, lon: -179.5)))
        #expect(close(Coordinate(lat: 0, lon: RegionGrid.wrap(-180.5)), Coordinate(lat: 0, lon: 179.5)))
        #expect(close(Coordinate(lat: 0, lon: RegionGrid.wrap(540.25)), Coordinate(lat: 0, lon: -179.75)))
    }
}

// MARK: - Negligible moves

@Suite("RegionGrid: negligible moves")
struct RegionGridMoveTests {
    @Test("a centre that moved less than a tenth of the span on both axes is a negligible move")
    func belowATenth() {
        let last = region(10, 20, span: (5, 5))
        #expect(RegionGrid.isNegligibleMove(from: last, to: region(10.25, 20.25, span: (5, 5))))
        #expect(RegionGrid.isNegligibleMove(from: last, to: region(9.75, 19.75, span: (5, 5))))
        #expect(RegionGrid.isNegligibleMove(from: last, to: last))
    }

    @Test("a move of exactly a tenth of the span, on either axis, is not negligible")
    func atATenth() {
        let last = region(10, 20, span: (5, 5))
        #expect(!RegionGrid.isNegligibleMove(from: last, to: region(10.5, 20, span: (5, 5))))
        #expect(!RegionGrid.isNegligibleMove(from: last, to: region(10, 19.5, span: (5, 5))))
    }

    @Test("a move above a tenth of the span on one axis only is not negligible")
    func aboveATenthOnOneAxis() {
        let last = region(10, 20, span: (5, 5))
        #expect(!RegionGrid.isNegligibleMove(from: last, to: region(10.75, 20, span: (5, 5))))
        #expect(!RegionGrid.isNegligibleMove(from: last, to: region(10, 21, span: (5, 5))))
    }

    @Test("without a span the threshold is a tenth of 3°: 0.29° is negligible, 0.31° is not")
    func defaultSpanThreshold() {
        #expect(RegionGrid.isNegligibleMove(from: region(10, 20), to: region(10.29, 20.29)))
        #expect(!RegionGrid.isNegligibleMove(from: region(10, 20), to: region(10.31, 20)))
        #expect(!RegionGrid.isNegligibleMove(from: region(10, 20), to: region(10, 20.31)))
    }

    @Test("the threshold is a tenth of each axis' own span")
    func perAxisSpan() {
        let last = region(0, 0, span: (1, 10))
        #expect(RegionGrid.isNegligibleMove(from: last, to: region(0.05, 0.9, span: (1, 10))))
        #expect(!RegionGrid.isNegligibleMove(from: last, to: region(0.15, 0, span: (1, 10))))
    }

    @Test("across the antimeridian the shorter way round counts: 179.9 → -179.9 is a move of 0.2°")
    func acrossTheAntimeridian() {
        #expect(RegionGrid.isNegligibleMove(from: region(0, 179.9), to: region(0, -179.9)))
        #expect(RegionGrid.isNegligibleMove(from: region(0, -179.9), to: region(0, 179.9)))
        #expect(!RegionGrid.isNegligibleMove(from: region(0, 179), to: region(0, -179)), "2° the short way is above 0.3°")
        #expect(RegionGrid.isNegligibleMove(from: region(0, 180), to: region(0, -180)), "the same meridian")
    }
}

// MARK: - Validation

@Suite("RegionGrid: validation")
struct RegionGridValidationTests {
    @Test(
        "regions outside the protocol's ranges are invalid params -32602",
        arguments: [
            region(90.0001, 0), region(-90.0001, 0), region(0, -180.5), region(0, 180.0001),
            region(.nan, 0), region(0, .nan), region(.infinity, 0),
            region(0, 0, span: (0, 3)), region(0, 0, span: (3, 0)), region(0, 0, span: (-1, 3)),
            region(0, 0, span: (181, 3)), region(0, 0, span: (3, 181)), region(0, 0, span: (.nan, 3)),
            region(0, 0, span: (3, .infinity)),
        ])
    func rejects(_ invalid: MapRegion) {
        do {
            let accepted = try invalid.validated()
            Issue.record("accepted \(accepted)")
        } catch {
            #expect(error.code == .invalidParams)
            #expect(error.json["code"] == .integer(-32602))
            #expect(error.json["data"]?["name"] == "invalid_params")
        }
    }

    @Test(
        "the bounds are valid: lat ±90, lon ±180, span 180, and no span",
        arguments: [
            region(90, 0), region(-90, 0), region(0, -180), region(0, 180), region(90, 180, span: (180, 180)),
            region(-90, -180, span: (0.0001, 180)), region(10, 20),
        ])
    func acceptsTheBounds(_ valid: MapRegion) throws {
        #expect(try valid.validated() == valid)
    }
}
