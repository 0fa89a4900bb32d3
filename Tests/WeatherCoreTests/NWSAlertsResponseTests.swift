import Foundation
import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("NWSAlertsResponse: the NWS's alerts and zones, decoded from the recorded answers")
struct NWSAlertsResponseTests {
    @Test("the recorded zone-based Flood Watch: CAP fields, times with their offsets, no area but its zones")
    func portland() throws {
        let alerts = try NWSAlertsResponse.alerts(try Fixture.portlandZoneAlert())
        let alert = try #require(alerts.first)
        #expect(alerts.count == 1)
        #expect(alert.id == "NWS-IDP-PROD-3965873-3369046")
        #expect(alert.event == "Flood Watch")
        #expect(alert.severity == .severe)
        #expect(alert.urgency == "Future")
        #expect(alert.certainty == "Possible")
        #expect(alert.sender == "NWS Portland OR")
        #expect(alert.provider == "nws")
        #expect(alert.headline?.hasPrefix("Flood Watch issued December 20") == true)
        #expect(alert.instruction?.hasPrefix("A Flood Watch means") == true)
        #expect(alert.onset == Timestamp.parse("2019-12-20T21:34:00Z"))
        #expect(alert.ends == Timestamp.parse("2019-12-22T18:00:00Z"))
        #expect(alert.expires == Timestamp.parse("2019-12-21T13:30:00Z"))
        #expect(alert.until == alert.ends)
        #expect(alert.area == nil)
        #expect(alert.zones.count == 11)
        #expect(alert.zones.first == "https://api.weather.gov/zones/forecast/ORZ001")
        let json = alert.json
        #expect(
            json.objectValue?.keys == [
                "id", "event", "severity", "urgency", "certainty", "headline", "description", "instruction", "onset", "ends",
                "sender", "provider",
            ])
        #expect(json["ends"] == "2019-12-22T18:00:00Z")
    }

    @Test("the storm-based warning: its Polygon is its area, and it ends at its ends")
    func polygon() throws {
        let alert = try #require(try NWSAlertsResponse.alerts(try Fixture.normanPolygonAlert()).first)
        #expect(alert.event == "Severe Thunderstorm Warning")
        let area = try #require(alert.area)
        #expect(area.polygons.count == 1)
        #expect(area.polygons[0][0].count == 5)
        #expect(area.polygons[0][0][0] == Coordinate(lat: 35.41, lon: -97.62))
        #expect(area.contains(Coordinate(lat: 35.40, lon: -97.42)))
        #expect(!area.contains(Coordinate(lat: 35.60, lon: -97.42)))
        #expect(area.json["type"] == "Polygon")
        #expect(alert.until == Timestamp.parse("2026-05-21T03:30:00Z"))
    }

    @Test("no alert in force: an empty list")
    func empty() throws {
        #expect(try NWSAlertsResponse.alerts(try Fixture.noAlerts()) == [])
    }

    @Test("only status Actual is kept, cancellations are not; most severe first")
    func filteredAndOrdered() throws {
        func feature(_ id: String, severity: String, status: String = "Actual", type: String = "Alert") -> String {
            #"{"type":"Feature","geometry":null,"properties":{"id":"\#(id)","status":"\#(status)","messageType":"\#(type)","event":"E\#(id)","severity":"\#(severity)"}}"#
        }
        let body =
            #"{"type":"FeatureCollection","features":["#
            + [
                feature("a", severity: "Minor"), feature("b", severity: "Extreme", status: "Exercise"),
                feature("c", severity: "Extreme"), feature("d", severity: "Moderate", status: "Test"),
                feature("e", severity: "Severe", type: "Cancel"), feature("f", severity: "whatever"),
                feature("g", severity: "Moderate"),
            ].joined(separator: ",") + "]}"
        let alerts = try NWSAlertsResponse.alerts(Array(body.utf8))
        #expect(alerts.map(\.id) == ["c", "g", "a", "f"])
        #expect(alerts.map(\.severity) == [.extreme, .moderate, .minor, .unknown])
    }

    @Test("a body that is not an alert collection is unavailable")
    func notACollection() {
        #expect(throws: UpstreamError.self) { try NWSAlertsResponse.alerts(Array("<html>".utf8)) }
        #expect(throws: UpstreamError.self) { try NWSAlertsResponse.alerts(Array(#"{"type":"Feature"}"#.utf8)) }
    }

    @Test("a zone's answer gives its MultiPolygon; a zone without geometry none")
    func zone() throws {
        let body =
            #"{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[-123,45],[-122,45],[-122,46],[-123,45]]],[[[-121,44],[-120,44],[-120,45],[-121,44]]]]},"properties":{"id":"ORZ006"}}"#
        let area = try #require(try NWSAlertsResponse.zoneArea(Array(body.utf8)))
        #expect(area.polygons.count == 2)
        #expect(area.json["type"] == "MultiPolygon")
        #expect(try NWSAlertsResponse.zoneArea(Array(#"{"type":"Feature","geometry":null}"#.utf8)) == nil)
    }

    @Test("HTTP statuses: 400 and 404 are outside the area, 429 a block, 5xx unavailable")
    func statuses() {
        func error(_ status: Int) -> UpstreamError? {
            do {
                _ = try NWSAlertProvider.checked(HTTPResponse(status: status, headers: ["retry-after": "7"], body: []))
                return nil
            } catch { return error }
        }
        #expect(error(200) == nil)
        #expect(error(404) == .notFound(message: "outside the NWS's area"))
        #expect(error(400) == .notFound(message: "outside the NWS's area"))
        #expect(error(429) == .rateLimited(retryAfter: .seconds(7)))
        #expect(error(503) == .unavailable("the NWS answered HTTP 503"))
    }

    @Test("the outline: the US and its territories in, Europe, Canada's north and Mexico's south out")
    func outline() {
        for point in [
            (45.52, -122.68), (35.35, -97.48), (40.71, -74.01), (61.22, -149.90), (21.31, -157.86), (18.47, -66.11), (13.44, 144.79),
            (25.76, -80.19),
        ] {
            #expect(USOutline.contains(Coordinate(lat: point.0, lon: point.1)), "\(point)")
        }
        for point in [(52.52, 13.40), (52.22, 6.89), (51.51, -0.13), (53.55, -113.49), (19.43, -99.13), (-37.78, 175.31), (45.50, -73.57)] {
            #expect(!USOutline.contains(Coordinate(lat: point.0, lon: point.1)), "\(point)")
        }
    }

    @Test("the request: the 2-decimal cell, and a zone asked at the configured API")
    func requests() async throws {
        let transport = RecordingTransport(body: try Fixture.noAlerts())
        let provider = NWSAlertProvider(transport: transport, config: AlertsConfig(nwsURL: "http://127.0.0.1:9/nws/"))
        _ = try await provider.alerts(at: AlertCell(Coordinate(lat: 35.3512, lon: -97.4849)).coordinate)
        #expect(transport.urls == ["http://127.0.0.1:9/nws/alerts/active?point=35.35,-97.48"])
        #expect(provider.zoneURL("https://api.weather.gov/zones/forecast/ORZ001") == "http://127.0.0.1:9/nws/zones/forecast/ORZ001")
        #expect(provider.zoneURL("http://127.0.0.1:9/nws/zones/county/OKC109") == "http://127.0.0.1:9/nws/zones/county/OKC109")
    }

    @Test("the User-Agent names weatherd, its version and the contact")
    func userAgent() {
        #expect(AlertsConfig(contact: " ops@example.org ").userAgent == "weatherd/\(WeatherdVersion.current) (ops@example.org)")
        #expect(AlertsConfig().userAgent == "weatherd/\(WeatherdVersion.current)")
    }
}

/// Answers every GET with one body and records the URLs asked.
final class RecordingTransport: HTTPTransport {
    private let body: [UInt8]
    private let asked = Mutex<[String]>([])

    init(body: [UInt8]) { self.body = body }

    var urls: [String] { asked.withLock { $0 } }

    func get(_ url: String, timeout: Duration) async throws -> HTTPResponse {
        asked.withLock { $0.append(url) }
        return HTTPResponse(status: 200, body: body)
    }
}
