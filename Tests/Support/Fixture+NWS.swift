import Foundation

extension Fixture {
    static let nwsDirectory = URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/nws")

    /// The bytes of `Tests/Fixtures/nws/<name>`.
    static func nws(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: nwsDirectory.appendingPathComponent(name)))
    }

    /// `alerts_active_zone_portland.json`: a recorded Flood Watch around Portland, OR, without geometry (its zones).
    static func portlandZoneAlert() throws -> [UInt8] { try nws("alerts_active_zone_portland.json") }

    /// `alerts_active_point_polygon_SYNTHESIZED.json`: a Severe Thunderstorm Warning near Norman, OK, with its Polygon.
    static func normanPolygonAlert() throws -> [UInt8] { try nws("alerts_active_point_polygon_SYNTHESIZED.json") }

    /// `alerts_active_point_empty_SYNTHESIZED.json`: no alert in force.
    static func noAlerts() throws -> [UInt8] { try nws("alerts_active_point_empty_SYNTHESIZED.json") }
}
