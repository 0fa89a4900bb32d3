import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// `GET /v1/air-quality`: the recorded Enschede answer near its point, made-up air elsewhere that is
/// the same for the same cell and whose indexes agree with its pollutants, lists of points, faults.
@Suite("Open-Meteo's air quality API")
struct OpenMeteoAirQualityTests {
    typealias E = WeatherEndpointTests
    typealias M = OpenMeteoForecastTests

    static let variables = "&current=european_aqi,us_aqi,pm2_5,pm10,ozone,nitrogen_dioxide&timezone=GMT&timeformat=unixtime"

    @Test("a point in Enschede gets the recorded answer, as weatherd's decoder reads it")
    func recorded() async throws {
        let response = await E.get(try M.endpoint(), "/v1/air-quality?latitude=52.22&longitude=6.89" + Self.variables)
        #expect(response.status == 200)
        let found = try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: Array(response.body.utf8)), count: 1)
        #expect(found.first?.europeanAQI == 44 && found.first?.usAQI == 65 && found.first?.pm25 == 22.1)
        #expect(try E.json(response) == JSONValue.parse(try Fixture.openMeteo("air_quality_enschede.json")))
    }

    @Test("a list of points: an array in the order asked, each cell's air the same every time, the indexes from the pollutants")
    func synthesized() async throws {
        let endpoint = try M.endpoint()
        let response = await E.get(endpoint, "/v1/air-quality?latitude=-33.5,52.22,-33.5&longitude=-120.25,6.89,-120.25" + Self.variables)
        let points = try #require(try E.json(response).arrayValue)
        #expect(points.count == 3)
        #expect(points[0] == points[2], "the same cell, the same air")
        #expect(points[1]["current"]?["european_aqi"] == .integer(44), "the recorded one in the middle")
        let current = try #require(points[0]["current"])
        #expect(current["time"]?.intValue == Int(M.now.timeIntervalSince1970) / 3600 * 3600, "the present hour, Unix seconds")
        let found = try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: Array(response.body.utf8)), count: 3)
        let air = try #require(found.first)
        let pm25 = try #require(air.pm25)
        // The EPA's index of PM2.5 alone is never above the US index (the higher of PM2.5's and PM10's).
        let epa = pm25 <= 9 ? pm25 / 9 * 50 : 50 + (pm25 - 9) / (35.4 - 9) * 50
        #expect(try #require(air.usAQI) >= epa.rounded() - 1)
        #expect(try #require(air.europeanAQI) >= 0)
        #expect(stats(endpoint)["air_quality_requests"] == .integer(1) && stats(endpoint)["air_quality_points"] == .integer(3))
    }

    @Test("the open-meteo service's faults cover it; points out of range are 400")
    func faultsAndErrors() async throws {
        let endpoint = try M.endpoint()
        let response = await E.get(endpoint, "/_faults?service=open-meteo&city=*&fault=503", method: "POST")
        #expect(response.status == 200)
        #expect(await E.get(endpoint, "/v1/air-quality?latitude=1&longitude=2").status == 503)
        _ = await E.get(endpoint, "/_faults", method: "DELETE")
        let refused = await E.get(endpoint, "/v1/air-quality?latitude=91&longitude=2")
        #expect(refused.status == 400)
        #expect(try E.json(refused)["reason"] == "Latitude must be in range of -90 to 90°. Given: 91.0.")
    }

    private func stats(_ endpoint: WeatherEndpoint) -> JSONValue {
        endpoint.stats.json["open_meteo"] ?? .null
    }
}
