import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherEndpoint: /data/2.5/forecast")
struct ForecastEndpointTests {
    typealias E = WeatherEndpointTests

    @Test("Paris is answered with its recorded forecast, converted to the units asked")
    func paris() async throws {
        let endpoint = try E.endpoint()
        let metric = try E.json(await E.get(endpoint, "/data/2.5/forecast?q=paris&units=metric"))
        #expect(metric["city"]?["id"] == .integer(2_988_507))
        #expect(metric["list"]?.arrayValue?.count == 2)
        #expect(metric["list"]?.arrayValue?[0]["main"]?["temp"] == .double(6.71))
        let imperial = try E.json(await E.get(endpoint, "/data/2.5/forecast?q=Paris,FR&units=imperial"))
        #expect(imperial["list"]?.arrayValue?[0]["main"]?["temp"] == .double(44.08))
        #expect(imperial["list"]?.arrayValue?[0]["wind"]?["speed"] == .double(8.41))
        let near = try E.json(await E.get(endpoint, "/data/2.5/forecast?lat=48.86&lon=2.35&units=metric"))
        #expect(near["city"]?["name"] == "Paris", "a point near Paris gets its forecast")
        #expect(endpoint.stats.json["by_query"]?["forecast:q=paris"] == .integer(1))
    }

    @Test("other cities and points get 40 synthesized 3-hour steps, the same for the same place")
    func synthesized() async throws {
        let endpoint = try E.endpoint()
        let london = try E.json(await E.get(endpoint, "/data/2.5/forecast?q=London&units=metric"))
        #expect(london["city"]?["name"] == "London" && london["city"]?["id"] == .integer(2_643_743))
        let steps = try #require(london["list"]?.arrayValue)
        #expect(steps.count == 40)
        let times = steps.compactMap { $0["dt"]?.intValue }
        #expect(times.count == 40 && times.allSatisfy { $0 % 10800 == 0 } && zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 10800 })
        #expect(times[0] > Int(Date().timeIntervalSince1970) - 10800)
        for step in steps {
            let pop = try #require(step["pop"]?.doubleValue)
            #expect((0...1).contains(pop))
            #expect(step["main"]?["temp"]?.doubleValue != nil && step["weather"]?.arrayValue?[0]["icon"]?.stringValue != nil)
        }
        let point = try E.json(await E.get(endpoint, "/data/2.5/forecast?lat=-10.5&lon=120.25&units=metric"))
        #expect(point["city"]?["id"] == .integer(0) && point["city"]?["coord"]?["lat"] == .double(-10.5))
        let again = try E.json(await E.get(endpoint, "/data/2.5/forecast?lat=-10.5&lon=120.25&units=metric"))
        #expect(point == again)
        #expect(
            try E.json(await E.get(endpoint, "/data/2.5/forecast?q=Atlantis"))
                == JSONValue.object(["cod": "404", "message": "city not found"]))
    }

    @Test("the API key check and the --fail rules apply as for weather")
    func faults() async throws {
        let endpoint = try E.endpoint(apiKey: "right", failures: ["Paris=429"], retryAfter: 7)
        #expect(await E.get(endpoint, "/data/2.5/forecast?q=London&appid=wrong").status == 401)
        let limited = await E.get(endpoint, "/data/2.5/forecast?q=Paris&appid=right")
        #expect(limited.status == 429 && limited.extraHeaders.contains { $0.name == "Retry-After" && $0.value == "7" })
        #expect(await E.get(endpoint, "/data/2.5/forecast?q=London&appid=right").status == 200)
        #expect(await E.get(endpoint, "/data/2.5/forecast?q=London", method: "POST").status == 405)
    }
}
