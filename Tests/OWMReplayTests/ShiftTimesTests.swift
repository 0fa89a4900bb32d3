import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// `--shift-times` and `--mark-sample`, the offline demo's options: recorded answers served with
/// their times moved to now and forecasts covering their whole range; every answer marked as sample
/// data. Without them (the other tests) every recorded time is served as recorded.
@Suite("owm-replay --shift-times, --mark-sample")
struct ShiftTimesTests {
    typealias E = WeatherEndpointTests
    typealias M = OpenMeteoForecastTests

    /// 2026-03-10T14:37:00Z.
    static let now = M.now
    static var present: Int { Int(now.timeIntervalSince1970) }

    static func endpoint(shiftTimes: Bool = true, markSample: Bool = false) throws -> WeatherEndpoint {
        var endpoint = try M.endpoint()
        endpoint.shiftTimes = shiftTimes
        endpoint.markSample = markSample
        return endpoint
    }

    @Test("recorded weather: dt is now (to the minute), sunrise and sunset moved by whole days; the rest as recorded")
    func weather() async throws {
        let recorded = try E.json(await E.get(try Self.endpoint(shiftTimes: false), "/data/2.5/weather?q=London&units=metric"))
        let moved = try E.json(await E.get(try Self.endpoint(), "/data/2.5/weather?q=London&units=metric"))
        #expect(moved["dt"] == .integer(Int64(Self.present / 60 * 60)))
        let recordedDT = try #require(recorded["dt"]?.intValue)
        let sunrise = try #require(recorded["sys"]?["sunrise"]?.intValue)
        let movedSunrise = try #require(moved["sys"]?["sunrise"]?.intValue)
        #expect((movedSunrise - sunrise) % 86400 == 0 && abs(movedSunrise - sunrise - (Self.present - recordedDT)) <= 43200)
        #expect(moved["main"] == recorded["main"] && moved["name"] == recorded["name"])
    }

    @Test("the recorded forecast: its steps moved to the next 3-hour boundary on, in the slots of a synthesized one: 40 steps, 3 h apart")
    func forecast() async throws {
        let recorded = try E.json(await E.get(try Self.endpoint(shiftTimes: false), "/data/2.5/forecast?q=Paris&units=metric"))
        let moved = try E.json(await E.get(try Self.endpoint(), "/data/2.5/forecast?q=Paris&units=metric"))
        let recordedSteps = try #require(recorded["list"]?.arrayValue)
        let steps = try #require(moved["list"]?.arrayValue)
        #expect(steps.count == 40 && moved["cnt"] == .integer(40))
        let times = steps.compactMap { $0["dt"]?.intValue }
        let first = (Self.present / 10800 + 1) * 10800
        #expect(times == (0..<40).map { first + $0 * 10800 })
        #expect(steps.first?["dt_txt"] == "2026-03-10 15:00:00")
        // The recorded steps (2018-12-01 00:00 and 2018-12-05 21:00) in their slots, their values as recorded.
        for (index, step) in zip([0, 39], recordedSteps) {
            #expect(steps[index]["main"] == step["main"] && steps[index]["weather"] == step["weather"], "step \(index)")
        }
        #expect(moved["city"]?["name"] == "Paris")
    }

    @Test("the recorded Open-Meteo answer: its present moved to this hour, the hours it lacks made up, the whole range answered")
    func openMeteo() async throws {
        let endpoint = try Self.endpoint()
        let body = try await M.body(
            endpoint, M.berlin + "&current=temperature_2m&hourly=temperature_2m&forecast_days=7&timeformat=unixtime")
        #expect(body["current"]?["time"] == .integer(Int64(Self.present / 3600 * 3600)))
        #expect(body["current"]?["temperature_2m"]?.doubleValue == 5.5, "the recorded value")
        let times = M.integers(body["hourly"]?["time"])
        #expect(times.count == 7 * 24, "every hour of the 7 days asked")
        #expect(times.first == M.midnight)
        #expect(M.doubles(body["hourly"]?["temperature_2m"]).allSatisfy { $0 != nil })
        // Without --shift-times the recording's own 2021 hours only.
        let recorded = try await M.body(
            try Self.endpoint(shiftTimes: false), M.berlin + "&hourly=temperature_2m&forecast_days=7&timeformat=unixtime")
        let recordedTimes = M.integers(recorded["hourly"]?["time"])
        #expect(recordedTimes.count == 47 && recordedTimes.allSatisfy { $0 < 1_640_995_200 })
    }

    @Test("--mark-sample: the services' answers carry Sample-Data: owm-replay, errors too; /_stats does not")
    func marked() async throws {
        let endpoint = try Self.endpoint(shiftTimes: false, markSample: true)
        for uri in [
            "/data/2.5/weather?q=London", "/data/2.5/forecast?q=Paris", "/geo/1.0/direct?q=London", "/data/2.5/weather?q=Atlantis",
            "/v1/forecast?" + M.berlin + "&current=temperature_2m", "/v1/search?name=Enschede",
        ] {
            let response = await E.get(endpoint, uri)
            #expect(response.extraHeaders.contains { $0 == ("Sample-Data", "owm-replay") }, "\(uri)")
        }
        #expect(await E.get(endpoint, "/_stats").extraHeaders.isEmpty)
        #expect(await E.get(try Self.endpoint(shiftTimes: false), "/data/2.5/weather?q=London").extraHeaders.isEmpty)
    }
}
