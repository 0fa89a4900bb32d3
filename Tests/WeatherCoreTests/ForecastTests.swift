import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// The recorded Paris forecast, decoded.
func parisForecast(sourceLocation: SourceLocation = #_sourceLocation) throws -> WeatherForecast {
    guard case .forecast(let forecast)? = OpenWeatherMapForecastResponse.decode(try Fixture.parisForecast(), units: .metric) else {
        Issue.record("the Paris fixture does not decode as a forecast", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    return forecast
}

@Suite("forecast: decoding and hours")
struct ForecastDecodingTests {
    @Test("the recorded Paris forecast decodes: the place from city, 2 steps oldest first, missing values nil")
    func paris() throws {
        let forecast = try parisForecast()
        #expect(forecast.place.cityID == 2_988_507 && forecast.place.name == "Paris" && forecast.place.country == "FR")
        #expect(forecast.place.coordinate == Coordinate(lat: 48.8534, lon: 2.3488))
        #expect(forecast.place.temperature == nil && forecast.place.units == .metric)
        #expect(forecast.steps.map(\.at) == [Date(timeIntervalSince1970: 1_543_622_400), Date(timeIntervalSince1970: 1_544_043_600)])
        let first = forecast.steps[0]
        #expect(first.temperature == 6.71 && first.feelsLike == 5.71 && first.humidity == 91 && first.pressure == 1018.65)
        #expect(first.windSpeed == 3.76 && first.windDeg == 228.501 && first.clouds == 88 && first.rain3h == 0.035)
        #expect(first.condition == "Rain" && first.conditionDescription == "light rain" && first.icon == "10n")
        #expect(first.tempMin == nil && first.tempMax == nil && first.pop == nil && first.snow3h == nil)
    }

    @Test("a step as JSON has every member of the contract, at in RFC 3339 UTC, missing values null")
    func stepJSON() throws {
        let json = try parisForecast().steps[0].json
        #expect(
            json.serialized
                == #"{"at":"2018-12-01T00:00:00Z","temperature":6.71,"feels_like":5.71,"temp_min":null,"temp_max":null,"humidity":91,"pressure":1018.65,"wind_speed":3.76,"wind_deg":228.501,"clouds":88,"pop":null,"rain_3h":0.035,"snow_3h":null,"condition":"Rain","description":"light rain","icon":"10n","symbol":"🌧"}"#
        )
    }

    @Test("pop, snow.3h and temp_min/max are read when present; cod as a number; steps are sorted")
    func fullStep() throws {
        let body =
            #"{"cod":200,"city":{"id":0,"name":"","coord":{"lat":1,"lon":2}},"list":[{"dt":20},{"dt":10,"pop":0.4,"snow":{"3h":1.5},"main":{"temp_min":-2,"temp_max":-1}},{"nodt":1}]}"#
        guard case .forecast(let forecast)? = OpenWeatherMapForecastResponse.decode(Array(body.utf8), units: .imperial) else {
            Issue.record("not decoded")
            return
        }
        #expect(forecast.place.cityID == nil && forecast.place.name == nil && forecast.place.featureID == "pt:1.0000,2.0000")
        #expect(forecast.steps.map(\.at.timeIntervalSince1970) == [10, 20])
        #expect(
            forecast.steps[0].pop == 0.4 && forecast.steps[0].snow3h == 1.5 && forecast.steps[0].tempMin == -2
                && forecast.steps[0].tempMax == -1)
    }

    @Test("error bodies decode as errors")
    func errors() throws {
        #expect(
            OpenWeatherMapForecastResponse.decode(Array(try Fixture.errorBody(404).utf8), units: .metric)
                == .error(code: 404, message: "city not found"))
        #expect(OpenWeatherMapForecastResponse.decode(Array("<html>".utf8), units: .metric) == nil)
        #expect(OpenWeatherMapForecastResponse.decode(Array(#"{"cod":"200"}"#.utf8), units: .metric) == .error(code: 200, message: nil))
    }

    @Test("hours: the steps that begin within hours of the first")
    func hoursSlicing() throws {
        let forecast = regularForecast()
        #expect(forecast.steps(covering: 3).count == 1)
        #expect(forecast.steps(covering: 4).count == 2)
        #expect(forecast.steps(covering: 24).count == 8)
        #expect(forecast.steps(covering: 24).map(\.temperature) == (0..<8).map { Double($0) })
        #expect(forecast.steps(covering: 120).count == 40)
        let paris = try parisForecast()  // 0 h and 117 h
        #expect(paris.steps(covering: 24).count == 1)
        #expect(paris.steps(covering: 117).count == 1)
        #expect(paris.steps(covering: 118).count == 2)
        #expect(WeatherForecast(place: paris.place, steps: []).steps(covering: 24).isEmpty)
    }

    @Test("the result is the place's Feature, source text, with properties.forecast")
    func feature() throws {
        let feature = try parisForecast().feature(hours: 24)
        #expect(feature["type"] == "Feature" && feature["id"] == "owm:2988507")
        #expect(feature["geometry"]?["coordinates"] == .array([.double(2.3488), .double(48.8534)]))
        let p = try #require(feature["properties"])
        #expect(p["name"] == "Paris" && p["country"] == "FR" && p["source"] == "text" && p["units"] == "metric")
        #expect(p["temperature"] == .null && p["observed_at"] == .null && p["stale"] == .bool(false))
        #expect(p["forecast"]?.arrayValue?.count == 1)
    }
}

/// The forecast through the real client and LookupService on a scripted transport.
@Suite("forecast: upstream")
struct ForecastUpstreamTests {
    let clock = ManualClock()
    let transport = ScriptedTransport()
    let client: OpenWeatherMapClient
    let service: LookupService

    init() throws {
        client = OpenWeatherMapClient(
            transport: transport, baseURL: "https://api.openweathermap.org", apiKey: Secret("s3cret-key"),
            units: .metric, lang: "de", timeout: .seconds(10), wallClock: { Fixture.fetchedAt })
        service = LookupService(
            upstream: client, limits: .init(cacheTTL: .seconds(600), requestsPerMinute: 3),
            clock: DaemonClock(clock), logger: silentLogger)
        transport.on("/geo/1.0/direct", .ok(try Fixture.londonPlaces()))
        transport.on("/data/2.5/forecast", .ok(try Fixture.parisForecast()))
        transport.on("/data/2.5/weather", .ok(try Fixture.london()))
    }

    @Test("the URL: /data/2.5/forecast with the point, units, lang and key of weather lookups")
    func url() {
        #expect(
            client.url(for: .forecast(Coordinate(lat: -23.55, lon: -46.63)))
                == "https://api.openweathermap.org/data/2.5/forecast?lat=-23.55&lon=-46.63&units=metric&lang=de&appid=s3cret-key")
        #expect(
            client.redactedURL(for: .forecast(Coordinate(lat: 1, lon: 2)))
                == "https://api.openweathermap.org/data/2.5/forecast?lat=1.00&lon=2.00&units=metric&lang=de&appid=%3Credacted%3E")
    }

    @Test("a forecast is fetched once and then cached for cache_ttl, apart from the weather of the same city")
    func cached() async throws {
        let first = try await service.forecast(.city("Paris"))
        #expect(first.place.fetchedAt == Fixture.fetchedAt && first.steps.count == 2)
        clock.advance(by: .seconds(599))
        #expect(try await service.forecast(.city(" PARIS ")) == first)
        #expect(transport.requests(matching: "/data/2.5/forecast") == 1)
        _ = try await service.lookup(.city("Paris"))
        #expect(transport.requests(matching: "/data/2.5/weather") == 1, "a cached forecast is no weather")
        clock.advance(by: .seconds(1))
        _ = try await service.forecast(.city("Paris"))
        #expect(transport.requests(matching: "/data/2.5/forecast") == 2)
    }

    @Test("forecasts spend the one request budget, and a 429 on a forecast blocks weather lookups too")
    func budget() async throws {
        func point(_ n: Double) -> LookupQuery { .coordinate(Coordinate(lat: n, lon: n)) }
        _ = try await service.forecast(point(1))
        _ = try await service.lookup(point(2))
        _ = try await service.forecast(point(3))
        await #expect(throws: WeatherError.self) { try await service.lookup(point(4)) }
        #expect(transport.requestCount == 3)

        clock.advance(by: .seconds(60))
        transport.on("/data/2.5/forecast", .status(429, try Fixture.errorBody(429), headers: ["retry-after": "5"]))
        do {
            _ = try await service.forecast(point(5))
            Issue.record("expected rate_limited")
        } catch let error as WeatherError {
            #expect(error.code == .rateLimited && error.details["retry_after"] == .integer(5))
        }
        do {
            _ = try await service.lookup(.city("Madrid"))
            Issue.record("expected rate_limited")
        } catch let error as WeatherError {
            #expect(error.code == .rateLimited)
        }
        #expect(transport.requestCount == 4)
    }

    @Test("errors as for weather: 404 not found, a body that is not a forecast unavailable")
    func errors() async throws {
        transport.on("q=Atlantis", .status(404, try Fixture.errorBody(404)))
        transport.on("q=Garbage", .status(200, "<html>"))
        do {
            _ = try await service.forecast(.city("Atlantis"))
            Issue.record("expected not_found")
        } catch let error as WeatherError {
            #expect(error.code == .notFound && error.message == "city not found: Atlantis")
        }
        do {
            _ = try await service.forecast(.city("Garbage"))
            Issue.record("expected upstream_unavailable")
        } catch let error as WeatherError {
            #expect(error.code == .upstreamUnavailable)
        }
    }
}
