import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Air quality: Open-Meteo's recorded answer, the client's requests, the bands")
struct AirQualityResponseTests {
    static func enschede() throws -> [UInt8] { try Fixture.openMeteo("air_quality_enschede.json") }

    @Test("the recorded Enschede answer: both indexes, the pollutants, its local time in UTC, provider open-meteo")
    func recorded() throws {
        let found = try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: try Self.enschede()), count: 1)
        #expect(
            found == [
                AirQuality(
                    europeanAQI: 44, usAQI: 65, pm25: 22.1, pm10: 28.2, ozone: 42, nitrogenDioxide: 11.2,
                    at: Timestamp.parse("2026-10-03T10:00:00Z"), provider: "open-meteo")
            ])
    }

    @Test("as a feature's air_quality: the contract's members, and null without one")
    func featureJSON() throws {
        let quality = try #require(
            try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: try Self.enschede()), count: 1).first)
        var observation = WeatherObservation(coordinate: Coordinate(lat: 52.22, lon: 6.89), units: .metric)
        #expect(WeatherFeature(observation: observation, source: .text).json["properties"]?["air_quality"] == .null)
        observation.airQuality = quality
        let json = try #require(WeatherFeature(observation: observation, source: .text).json["properties"]?["air_quality"]?.objectValue)
        #expect(
            json.members.map(\.0) == ["european_aqi", "us_aqi", "pm2_5", "pm10", "ozone", "nitrogen_dioxide", "at", "provider"])
        #expect(json["at"] == "2026-10-03T10:00:00Z")
        #expect(AirQuality(json: .object(json)) == quality, "read back as written")
    }

    @Test("several points in one request: each point's 0.01° cell, the variables, Unix times; the key redacted in the log's URL")
    func url() {
        let points = [Coordinate(lat: 52.2215, lon: 6.8937), Coordinate(lat: -33.8688, lon: 151.2093)]
        let free = OpenMeteoAirQualityClient.url(for: points, endpoint: .init(baseURL: "http://127.0.0.1:9/"), key: nil)
        #expect(
            free
                == "http://127.0.0.1:9/v1/air-quality?latitude=52.22,-33.87&longitude=6.89,151.21"
                + "&current=european_aqi,us_aqi,pm2_5,pm10,ozone,nitrogen_dioxide&timezone=GMT&timeformat=unixtime")
        let keyed = OpenMeteoAirQualityClient.Endpoint(apiKey: Secret("s3cret"))
        #expect(keyed.host == OpenMeteoAirQualityClient.customerBaseURL, "a subscription's key goes to its host")
        #expect(OpenMeteoAirQualityClient.url(for: points, endpoint: keyed, key: "<redacted>").hasSuffix("&apikey=%3Credacted%3E"))
    }

    @Test("an answer for another number of points, a body that is not air quality, a 429, a 5xx: the errors the lookups know")
    func errors() throws {
        let one = try Self.enschede()
        #expect(throws: UpstreamError.self) { try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: one), count: 2) }
        #expect(throws: UpstreamError.self) {
            try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 200, body: Array("[1]".utf8)), count: 1)
        }
        do {
            _ = try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 429, headers: ["retry-after": "7"], body: []), count: 1)
            Issue.record("a 429 was read")
        } catch {
            #expect(error == .rateLimited(retryAfter: .seconds(7)))
        }
        do {
            _ = try OpenMeteoAirQualityClient.interpret(HTTPResponse(status: 503, body: []), count: 1)
            Issue.record("a 503 was read")
        } catch {
            #expect(error == .unavailable("Open-Meteo's air quality API answered HTTP 503"))
        }
    }
}

@Suite("Air quality bands: the scales' published boundaries, in words and colour")
struct AirQualityBandTests {
    @Test(
        "European: good … extremely poor, each band with its upper bound",
        arguments: [
            (0.0, "good"), (20, "good"), (20.5, "fair"), (40, "fair"), (44, "moderate"), (60, "moderate"), (61, "poor"),
            (80, "poor"), (99, "very poor"), (100, "very poor"), (101, "extremely poor"), (400, "extremely poor"),
        ])
    func european(index: Double, name: String) {
        #expect(AirQualityBand(index: index, scale: .european)?.name == name)
    }

    @Test(
        "US: good … hazardous",
        arguments: [
            (0.0, "good"), (50, "good"), (51, "moderate"), (65, "moderate"), (100, "moderate"), (101, "unhealthy for sensitive groups"),
            (150, "unhealthy for sensitive groups"), (151, "unhealthy"), (201, "very unhealthy"), (300, "very unhealthy"),
            (301, "hazardous"),
        ])
    func us(index: Double, name: String) {
        #expect(AirQualityBand(index: index, scale: .us)?.name == name)
    }

    @Test("no band for a negative or not finite index; the text colour keeps 4.5:1 on every band's colour")
    func edges() throws {
        #expect(AirQualityBand(index: -1, scale: .european) == nil)
        #expect(AirQualityBand(index: .nan, scale: .us) == nil)
        for scale in AirQualityScale.allCases {
            for level in 0..<6 {
                let index = level == 5 ? 1000 : AirQualityBand.upperBounds(scale)[level]
                let band = try #require(AirQualityBand(index: index, scale: scale))
                #expect(band.level == level)
                #expect(Self.contrast(band.colour, band.textColour) >= 4.5, "\(scale) \(band.name)")
            }
        }
    }

    /// WCAG's contrast ratio of two `#RRGGBB` colours.
    static func contrast(_ a: String, _ b: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16)!
            let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { c -> Double in
                let s = Double(c) / 255
                return s <= 0.039_28 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        }
        let (l1, l2) = (luminance(a), luminance(b))
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }
}

/// Two weather providers and the air quality API behind one LookupService, on a manual clock.
private struct AirQualityLookups {
    let clock = ManualClock()
    let owm = ProviderStub(.openWeatherMap)
    let om = ProviderStub(.openMeteo, maxPointsPerRequest: 50)
    let air = AirQualityStub()
    let service: LookupService

    init(order: [WeatherProviderName] = [.openMeteo], omPerMinute: Int = 600, enabled: Bool = true) {
        var limits = LookupService.Limits(
            cacheTTL: .seconds(600), geocodeTTL: .seconds(86_400), providers: order,
            budgets: [.openWeatherMap: .init(perMinute: 60), .openMeteo: .init(perMinute: omPerMinute, perDay: 10_000)])
        limits.airQuality = enabled
        service = LookupService(
            upstreams: [owm, om], airQuality: air, limits: limits, clock: DaemonClock(clock),
            wallClock: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: silentLogger)
    }

    var status: ServiceStatus? {
        get async { await service.serviceStatuses.first }
    }

    /// Requests (points) counted in Open-Meteo's budget in the last minute.
    var openMeteoUsed: Int {
        get async { await service.health[.openMeteo]?.status(.openMeteo, now: DaemonClock(clock).now, wallNow: Date()).usedMinute ?? 0 }
    }
}

@Suite("LookupService: air quality beside the weather", .timeLimit(.minutes(1)))
struct AirQualityLookupTests {
    static let grid = (0..<9).map { Coordinate(lat: 50 + Double($0 / 3), lon: 10 + Double($0 % 3)) }

    @Test("a lookup lands the air quality in the observation; a second within cache_ttl asks nothing")
    func lookup() async throws {
        let l = AirQualityLookups()
        let point = Coordinate(lat: 52.2215, lon: 6.8937)
        let observation = try await l.service.lookup(.coordinate(point))
        #expect(observation.airQuality == AirQualityStub.reading(at: point, scale: .european))
        #expect(try await l.service.lookup(.coordinate(Coordinate(lat: 52.2219, lon: 6.8941))).airQuality != nil)
        #expect(l.air.calls == [[point]], "the same 0.01° cell: from the cache")
    }

    @Test(
        "read outside the actor: the lookup's answer with its air quality once all of it is cached; nil before, and nil while the air quality is not"
    )
    func cached() async throws {
        let l = AirQualityLookups()
        let point = Coordinate(lat: 52.2215, lon: 6.8937)
        #expect(l.service.cached(.coordinate(point)) == nil)
        let observation = try await l.service.lookup(.coordinate(point))
        #expect(l.service.cached(.coordinate(point)) == observation)
        #expect(l.service.cached(.coordinate(point))?.airQuality == AirQualityStub.reading(at: point, scale: .european))
        let other = Coordinate(lat: 1, lon: 1)
        l.air.fail(with: .unavailable("Open-Meteo's air quality API answered HTTP 503"))
        #expect(try await l.service.lookup(.coordinate(other)).airQuality == nil)
        #expect(l.service.cached(.coordinate(other)) == nil, "its weather is cached, its air quality not: ask the lookups")
    }

    @Test("a 3×3 grid with Open-Meteo: one weather request and one air quality request, 18 points of its budget")
    func gridTogether() async throws {
        let l = AirQualityLookups()
        let results = await l.service.lookUpTogether(Self.grid)
        for (point, result) in zip(Self.grid, results) {
            guard case .success(let observation)? = result else {
                Issue.record("\(point) not answered")
                continue
            }
            #expect(observation.airQuality == AirQualityStub.reading(at: point, scale: .european))
        }
        #expect(l.om.callCount == 1)
        #expect(l.air.calls == [Self.grid])
        #expect(await l.openMeteoUsed == 18)
    }

    @Test(
        "with OpenWeatherMap alone: the grid's air quality still in one request, counted in Open-Meteo's budget; lone lookups find it cached"
    )
    func gridWithOpenWeatherMap() async throws {
        let l = AirQualityLookups(order: [.openWeatherMap])
        #expect(await l.service.lookUpTogether(Self.grid).allSatisfy { $0 == nil })
        for point in Self.grid {
            #expect(try await l.service.lookup(.coordinate(point)).airQuality == AirQualityStub.reading(at: point, scale: .european))
        }
        #expect(l.air.calls == [Self.grid])
        #expect(await l.openMeteoUsed == 9, "Open-Meteo is not a weather provider here; its budget still counts")
    }

    @Test("a failed request keeps the weather (air quality nil), shows in state.services, and is not asked again during its backoff")
    func failure() async throws {
        let l = AirQualityLookups()
        l.air.fail(with: .unavailable("Open-Meteo's air quality API answered HTTP 503"))
        let observation = try await l.service.lookup(.coordinate(Coordinate(lat: 1, lon: 1)))
        #expect(observation.airQuality == nil)
        #expect(observation.provider == "open-meteo")
        #expect(
            await l.status
                == ServiceStatus(name: "air-quality", usable: false, error: "Open-Meteo's air quality API answered HTTP 503"))
        #expect(await l.service.statusChanges.wait(), "the failure woke the state's watcher")
        _ = try await l.service.lookup(.coordinate(Coordinate(lat: 2, lon: 2)))
        #expect(l.air.calls.count == 1, "backing off: not asked")
        l.air.fail(with: nil)
        l.clock.advance(by: ProviderHealth.firstBackoff)
        #expect(try await l.service.lookup(.coordinate(Coordinate(lat: 3, lon: 3))).airQuality != nil)
        #expect(await l.status == ServiceStatus(name: "air-quality", usable: true))
    }

    @Test("a 429 blocks it for Retry-After, with blocked_until")
    func blocked() async throws {
        let l = AirQualityLookups()
        l.air.fail(with: .rateLimited(retryAfter: .seconds(30)))
        _ = try await l.service.lookup(.coordinate(Coordinate(lat: 1, lon: 1)))
        let status = try #require(await l.status)
        #expect(status.usable == false)
        #expect(status.blockedUntil == Date(timeIntervalSince1970: 1_800_000_030))
    }

    @Test("Open-Meteo's budget spent: no air quality asked, the weather served, the entry says why")
    func budgetSpent() async throws {
        let l = AirQualityLookups(order: [.openWeatherMap], omPerMinute: 2)
        #expect(await l.service.lookUpTogether(Self.grid).allSatisfy { $0 == nil })
        #expect(l.air.calls.isEmpty, "9 points do not fit in a budget of 2")
        #expect(try await l.service.lookup(.coordinate(Self.grid[0])).airQuality != nil, "one point does")
        #expect(try await l.service.lookup(.coordinate(Self.grid[1])).airQuality != nil)
        #expect(try await l.service.lookup(.coordinate(Self.grid[2])).airQuality == nil)
        let status = try #require(await l.status)
        #expect(status.usable == false && status.error == "Open-Meteo request budget of 2 a minute is spent")
    }

    @Test("disabled: nothing asked, air quality nil, the entry says so")
    func disabled() async throws {
        let l = AirQualityLookups(enabled: false)
        #expect(try await l.service.lookup(.coordinate(Coordinate(lat: 1, lon: 1))).airQuality == nil)
        #expect(
            await l.service.lookUpTogether(Self.grid).allSatisfy { if case .success(let o)? = $0 { o.airQuality == nil } else { false } })
        #expect(l.air.calls.isEmpty)
        #expect(await l.status == ServiceStatus(name: "air-quality", usable: false, error: "disabled (air-quality.enabled = false)"))
    }
}

/// Another service that reports itself in `state.services` (as the NWS alerts will).
private actor OtherService: ServiceStatusReporting {
    var status = ServiceStatus(name: "other", usable: true)

    var serviceStatuses: [ServiceStatus] { [status] }

    func fail(_ error: String) {
        status = ServiceStatus(name: "other", usable: false, error: error)
    }
}

@Suite("state.services: a list every service adds itself to", .timeLimit(.minutes(1)))
struct ServiceStatusesTests {
    @Test("the engine lists each reporter's entries in the order given, air-quality first; a change goes out as a state notification")
    func listed() async throws {
        let clock = ManualClock()
        let publisher = RecordingPublisher()
        let air = AirQualityStub()
        var limits = LookupService.Limits(cacheTTL: .seconds(600), requestsPerMinute: 60, providers: [.openMeteo])
        limits.airQuality = true
        let lookups = LookupService(
            upstreams: [ProviderStub(.openMeteo, maxPointsPerRequest: 50)], airQuality: air, limits: limits,
            clock: DaemonClock(clock), logger: silentLogger)
        let other = OtherService()
        let engine = SearchEngine(
            cities: try WatchedCities(configured: [], store: MemoryCityStore(CityChanges())), gps: GPSStatus(enabled: false),
            lookups: lookups, publisher: publisher, services: [lookups, other], wallClock: { EngineHarness.startTime },
            clock: DaemonClock(clock), logger: silentLogger)
        await engine.refreshBudget()
        #expect(
            await engine.currentState.services == [
                ServiceStatus(name: "air-quality", usable: true), ServiceStatus(name: "other", usable: true),
            ])
        #expect(await engine.currentState.json["services"]?.arrayValue?.map { $0["name"] } == ["air-quality", "other"])

        air.fail(with: .unavailable("down"))
        _ = try await lookups.lookup(.coordinate(Coordinate(lat: 1, lon: 1)))
        await other.fail("no answer")
        let before = publisher.states.count
        await engine.refreshBudget()
        #expect(publisher.states.count == before + 1, "one state notification")
        #expect(
            publisher.states.last?.services == [
                ServiceStatus(name: "air-quality", usable: false, error: "down"),
                ServiceStatus(name: "other", usable: false, error: "no answer"),
            ])
    }
}
