import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("FixFilter: which gpsd reports are fixes")
struct FixFilterTests {
    let filter = FixFilter(maxHorizontalError: 100)
    let time = Date(timeIntervalSince1970: 1_795_000_000)
    let hamilton = Coordinate(lat: -37.7848, lon: 175.3149)

    @Test(
        "a 2D or 3D report with a position and eph below the maximum is a fix with its position, eph, mode and time",
        arguments: [2, 3])
    func acceptsGoodFix(mode: Int) throws {
        let report = GPSReport(mode: mode, coordinate: hamilton, horizontalError: 20.9)
        let fix = try #require(filter.accept(report, at: time))
        #expect(fix == GPSFix(coordinate: hamilton, horizontalError: 20.9, mode: mode, at: time))
    }

    @Test("eph exactly at max_horizontal_error is accepted")
    func acceptsErrorAtMaximum() {
        let report = GPSReport(mode: 3, coordinate: hamilton, horizontalError: 100)
        #expect(filter.accept(report, at: time)?.horizontalError == 100)
    }

    @Test("eph zero is accepted")
    func acceptsZeroError() {
        #expect(filter.accept(GPSReport(mode: 2, coordinate: hamilton, horizontalError: 0), at: time) != nil)
    }

    @Test("mode 0 (not seen) and 1 (no fix) are rejected even with a position and a small eph", arguments: [0, 1])
    func rejectsNoFixModes(mode: Int) {
        #expect(filter.accept(GPSReport(mode: mode, coordinate: hamilton, horizontalError: 5), at: time) == nil)
    }

    @Test("modes other than 2 and 3 are rejected: the decision is on mode alone", arguments: [-1, 4, 7])
    func rejectsUnknownModes(mode: Int) {
        #expect(filter.accept(GPSReport(mode: mode, coordinate: hamilton, horizontalError: 5), at: time) == nil)
    }

    @Test("a TPV with a fix mode but no position is rejected", arguments: [2, 3])
    func rejectsModeWithoutPosition(mode: Int) {
        #expect(filter.accept(GPSReport(mode: mode, coordinate: nil, horizontalError: 5), at: time) == nil)
    }

    @Test("an unknown eph (nil) is rejected")
    func rejectsUnknownError() {
        #expect(filter.accept(GPSReport(mode: 3, coordinate: hamilton, horizontalError: nil), at: time) == nil)
    }

    @Test(
        "eph NaN, infinite, negative or above the maximum is rejected",
        arguments: [Double.nan, .infinity, -.infinity, -0.5, 100.001, 250])
    func rejectsBadError(eph: Double) {
        #expect(filter.accept(GPSReport(mode: 3, coordinate: hamilton, horizontalError: eph), at: time) == nil)
    }

    @Test(
        "a position outside [-90, 90] × [-180, 180] or not finite is rejected",
        arguments: [
            Coordinate(lat: 90.0001, lon: 0), Coordinate(lat: -91, lon: 0), Coordinate(lat: 0, lon: 180.5),
            Coordinate(lat: 0, lon: -181), Coordinate(lat: .nan, lon: 10), Coordinate(lat: 10, lon: .infinity),
        ])
    func rejectsInvalidCoordinates(coordinate: Coordinate) {
        #expect(filter.accept(GPSReport(mode: 3, coordinate: coordinate, horizontalError: 5), at: time) == nil)
    }

    @Test(
        "positions on the edges of the valid range are accepted",
        arguments: [
            Coordinate(lat: 90, lon: 180), Coordinate(lat: -90, lon: -180),
        ])
    func acceptsEdgeCoordinates(coordinate: Coordinate) {
        #expect(filter.accept(GPSReport(mode: 3, coordinate: coordinate, horizontalError: 5), at: time)?.coordinate == coordinate)
    }

    @Test("the maximum is the configured one: eph 30 passes a maximum of 50 and fails one of 25")
    func configuredMaximum() {
        let report = GPSReport(mode: 3, coordinate: hamilton, horizontalError: 30)
        #expect(FixFilter(maxHorizontalError: 50).accept(report, at: time) != nil)
        #expect(FixFilter(maxHorizontalError: 25).accept(report, at: time) == nil)
    }
}
