import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// The rules and faults on Open-Meteo's paths: the same machinery as OpenWeatherMap's, Open-Meteo's
/// bodies, and faults for one service.
@Suite("Open-Meteo: faults, rules, the API key")
struct OpenMeteoFaultTests {
    typealias E = WeatherEndpointTests
    typealias M = OpenMeteoForecastTests

    static let forecast = "/v1/forecast?latitude=52.52&longitude=13.41&current=temperature_2m"
    static let elsewhere = "/v1/forecast?latitude=-33.5&longitude=-120.25&current=temperature_2m"
    static let list = "/v1/forecast?latitude=-33.5,52.52&longitude=-120.25,13.41&current=temperature_2m"

    static func post(_ endpoint: WeatherEndpoint, _ query: String) async {
        let response = await E.get(endpoint, "/_faults?" + query, method: "POST")
        #expect(response.status == 200, "\(query): \(response.body)")
    }

    static func error(_ reason: String) -> JSONValue {
        .object(["error": .bool(true), "reason": .string(reason)])
    }

    @Test("status faults answer Open-Meteo's bodies: 400 and 401 and 429 and 500 JSON, 502–504 the proxy's page")
    func statusBodies() async throws {
        let endpoint = try M.endpoint()
        for (status, body) in [
            (400, Self.error("Bad Request (a fault set at owm-replay)")),
            (401, Self.error("API key invalid")),
            (403, Self.error("Forbidden")),
            (429, Self.error("Minutely API request limit exceeded. Please try again in one minute.")),
            (500, Self.error("Internal Server Error")),
        ] {
            await Self.post(endpoint, "service=open-meteo&city=*&fault=\(status)")
            let response = await E.get(endpoint, Self.forecast)
            #expect(response.status == status)
            #expect(try E.json(response) == body, "\(status)")
            #expect(response.extraHeaders.isEmpty, "\(status)")
        }
        await Self.post(endpoint, "service=open-meteo&city=*&fault=503")
        let proxy = await E.get(endpoint, Self.forecast)
        #expect(proxy.status == 503 && proxy.contentType == "text/html" && proxy.body.contains("503"))
    }

    @Test("429 with and without Retry-After")
    func retryAfter() async throws {
        let endpoint = try M.endpoint()
        await Self.post(endpoint, "service=open-meteo&city=*&fault=429&retry_after=30")
        let limited = await E.get(endpoint, Self.forecast)
        #expect(limited.status == 429)
        #expect(limited.extraHeaders.filter { $0.name == "Retry-After" }.map(\.value) == ["30"])
        await Self.post(endpoint, "service=open-meteo&city=*&fault=429")
        #expect(await E.get(endpoint, Self.forecast).extraHeaders.isEmpty)
    }

    @Test("a fault for one service leaves the other alone; a fault without a service covers both")
    func serviceScope() async throws {
        let endpoint = try M.endpoint()
        await Self.post(endpoint, "service=openweathermap&city=*&fault=500")
        #expect(await E.get(endpoint, Self.forecast).status == 200)
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=52.52&lon=13.41").status == 500)
        _ = await E.get(endpoint, "/_faults", method: "DELETE")
        await Self.post(endpoint, "service=open-meteo&city=*&fault=500")
        #expect(await E.get(endpoint, Self.forecast).status == 500)
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=52.52&lon=13.41").status == 200)
        _ = await E.get(endpoint, "/_faults", method: "DELETE")
        await Self.post(endpoint, "city=*&fault=502")
        #expect(await E.get(endpoint, Self.forecast).status == 502)
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=52.52&lon=13.41").status == 502)
    }

    @Test("a fault naming a city covers the points that resolve to it, and a list holding one of them")
    func cityFaults() async throws {
        let endpoint = try M.endpoint()
        await Self.post(endpoint, "city=Berlin&service=open-meteo&fault=503")
        #expect(await E.get(endpoint, Self.forecast).status == 503, "the recorded point, near Berlin")
        #expect(await E.get(endpoint, "/v1/forecast?latitude=52.6&longitude=13.3&current=temperature_2m").status == 503)
        #expect(await E.get(endpoint, Self.elsewhere).status == 200)
        #expect(await E.get(endpoint, Self.list).status == 503, "one of the points is Berlin")
        await Self.post(endpoint, "city=Springfield,US&fault=404")
        let springfield = await E.get(endpoint, "/v1/forecast?latitude=44.05&longitude=-123.02&current=temperature_2m")
        #expect(springfield.status == 404, "a point near a known place without recorded weather")
        #expect(try E.json(springfield) == Self.error("Not Found"))
    }

    @Test("* of a service covers every request of it, a list of points and one whose parameters are wrong")
    func star() async throws {
        let endpoint = try M.endpoint()
        await Self.post(endpoint, "service=open-meteo&city=*&fault=not-json")
        for target in [
            Self.forecast, Self.list, "/v1/forecast?latitude=1,2&longitude=3", "/v1/forecast?latitude=1&longitude=1&current=foo",
        ] {
            let response = await E.get(endpoint, target)
            #expect(response.status == 200 && response.body == ReplayResponse.garbage.body, "\(target)")
        }
    }

    @Test("a drip fault keeps the answer; huge answers the bytes asked")
    func deliveries() async throws {
        let endpoint = try M.endpoint()
        let usual = await E.get(endpoint, Self.forecast)
        await Self.post(endpoint, "service=open-meteo&city=*&fault=drip&rate=64")
        let dripped = await E.get(endpoint, Self.forecast)
        #expect(dripped.body == usual.body && dripped.delivery == .drip(bytesPerSecond: 64))
        await Self.post(endpoint, "service=open-meteo&city=*&fault=huge&bytes=4096")
        #expect(await E.get(endpoint, Self.forecast).delivery == .filler(bytes: 4096, chunked: false))
    }

    @Test("--fail and --delay rules, for one service or both; --retry-after with a 429")
    func rules() async throws {
        let endpoint = try M.endpoint(
            delays: ["open-meteo:Berlin=150"], failures: ["open-meteo:*=429", "openweathermap:Tokyo=500"], retryAfter: 7)
        let limited = await E.get(endpoint, Self.elsewhere)
        #expect(limited.status == 429)
        #expect(limited.extraHeaders.filter { $0.name == "Retry-After" }.map(\.value) == ["7"])
        #expect(try E.json(limited)["reason"]?.stringValue?.hasPrefix("Minutely") == true)
        #expect(await E.get(endpoint, "/data/2.5/weather?q=Paris").status == 200)
        let clock = ContinuousClock()
        let delayed = await clock.measure { _ = await E.get(endpoint, Self.forecast) }
        #expect(delayed >= .milliseconds(150))

        let both = try M.endpoint(failures: ["Berlin=garbage"])
        #expect(await E.get(both, Self.forecast).body == ReplayResponse.garbage.body)
        #expect(await E.get(both, "/data/2.5/weather?q=Berlin").body == ReplayResponse.garbage.body)
    }

    @Test("--open-meteo-api-key: apikey= must match (401 with Open-Meteo's body), before any fault; --api-key is OpenWeatherMap's")
    func apiKey() async throws {
        let endpoint = try M.endpoint(openMeteoAPIKey: "om-key", apiKey: "owm-key")
        for target in [Self.forecast, Self.forecast + "&apikey=wrong", Self.forecast + "&appid=om-key"] {
            let response = await E.get(endpoint, target)
            #expect(response.status == 401, "\(target)")
            #expect(try E.json(response) == Self.error("API key invalid"))
        }
        #expect(await E.get(endpoint, Self.forecast + "&apikey=om-key").status == 200)
        #expect(await E.get(endpoint, "/data/2.5/weather?q=Paris&appid=owm-key").status == 200)
        await Self.post(endpoint, "city=*&fault=500")
        #expect(await E.get(endpoint, Self.forecast + "&apikey=wrong").status == 401)
        #expect(await E.get(endpoint, Self.forecast + "&apikey=om-key").status == 500)
        #expect(endpoint.stats.json["open_meteo"]?["wrong_key"] == .integer(4), "each refused key is counted")
        #expect(endpoint.stats.json["wrong_key"] == .integer(0), "OpenWeatherMap's key was right")

        let open = try M.endpoint(apiKey: "owm-key")
        #expect(await E.get(open, Self.forecast).status == 200, "no Open-Meteo key: none needed")
        #expect(await E.get(open, Self.forecast + "&apikey=anything").status == 200)
    }

    @Test("the logged target hides the apikey")
    func redacted() {
        #expect(
            RequestTarget("/v1/forecast?latitude=1&apikey=secret&longitude=2").redacted
                == "/v1/forecast?latitude=1&apikey=<redacted>&longitude=2")
    }

    @Test("over HTTP: hang until cleared, then the usual answer; not-json")
    func overHTTP() async throws {
        let replay = try await RunningReplay.start(try M.endpoint())
        do {
            _ = try await replay.request("POST", "/_faults?service=open-meteo&city=*&fault=hang")
            let client = try HTTPClientConnection(port: replay.port)
            try client.send("GET", Self.list)
            let reply = Task { try await client.readReply() }
            try await replay.waitForHanging(1)
            #expect(try await replay.request("GET", "/data/2.5/weather?q=London").status == 200, "OpenWeatherMap is answered meanwhile")
            _ = try await replay.request("DELETE", "/_faults?service=open-meteo")
            let answer = try await reply.value
            #expect(answer.status == 200)
            #expect(try answer.json().arrayValue?.count == 2)

            _ = try await replay.request("POST", "/_faults?service=open-meteo&city=Berlin&fault=not-json")
            let garbled = try await replay.request("GET", Self.forecast)
            #expect(garbled.status == 200)
            #expect(throws: (any Error).self) { try garbled.json() }
        } catch {
            try? await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    @Test("/_stats counts Open-Meteo's forecasts apart: requests, points, each point; OpenWeatherMap's counts stay as they were")
    func stats() async throws {
        let endpoint = try M.endpoint()
        _ = await E.get(endpoint, "/data/2.5/weather?lat=52.52&lon=13.41")
        _ = await E.get(endpoint, Self.forecast)
        _ = await E.get(endpoint, Self.list)
        _ = await E.get(endpoint, "/v1/forecast?latitude=52.520&longitude=13.41,1")  // 400: no points
        _ = await E.get(endpoint, Self.forecast, method: "POST")  // 405: not a request
        let stats = try E.json(await E.get(endpoint, "/_stats"))
        #expect(stats["requests"] == .integer(1))
        #expect(stats["by_query"] == .object(["lat=52.52&lon=13.41": .integer(1)]))
        #expect(
            stats["open_meteo"]
                == .object([
                    "requests": .integer(3),
                    "forecast_requests": .integer(3),
                    "forecast_points": .integer(3),
                    "search_requests": .integer(0),
                    "air_quality_requests": .integer(0),
                    "air_quality_points": .integer(0),
                    "wrong_key": .integer(0),
                    "by_query": .object(["lat=-33.5&lon=-120.25": .integer(1), "lat=52.52&lon=13.41": .integer(2)]),
                ]))
    }
}
