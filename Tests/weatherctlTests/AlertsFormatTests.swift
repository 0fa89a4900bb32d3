import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import weatherctl

@Suite("HumanFormat: alerts")
struct AlertsFormatTests {
    static let utc = WallClock.Zone.utc

    @Test("the recorded Flood Watch: severity, event, until when (its ends), the instruction indented, the NWS credited")
    func floodWatch() throws {
        let alerts = try NWSAlertsResponse.alerts(try Fixture.portlandZoneAlert())
        let lines = HumanFormat.alerts(.object(["alerts": .array(alerts.map(\.json))]), timeZone: Self.utc)
        #expect(lines.first == "Severe  Flood Watch  until Sun 22 Dec 18:00")
        #expect(lines[1] == "  A Flood Watch means there is a potential for flooding based on")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("  ") })
        #expect(lines.last == HumanFormat.nwsCredit)
    }

    @Test("none in force, and outside every provider's area, each in one line without a credit")
    func noneAndOutside() {
        #expect(HumanFormat.alerts(.object(["alerts": .array([])])) == ["no alerts in force"])
        #expect(
            HumanFormat.alerts(.object(["alerts": .null])) == ["no alert provider covers this place (the NWS: the United States)"])
    }

    @Test("an alert without an end or an instruction is one line")
    func bare() {
        let alert = Alert(id: "x", event: "Special Weather Statement", severity: .minor, provider: "nws")
        #expect(
            HumanFormat.alerts(.object(["alerts": .array([alert.json])]), timeZone: Self.utc) == [
                "Minor  Special Weather Statement", HumanFormat.nwsCredit,
            ])
    }
}
