import Logging
import Testing

@testable import TestSupport
@testable import WeatherCore

/// A LookupService over the real OpenWeatherMap client and a scripted transport, on a manual clock.
/// Every URL is answered with the London fixture unless a test scripts otherwise.
private struct Harness {
    static let apiKey = "k3y-0f-the-0perat0r-abcdef"

    let clock = ManualClock()
    let transport = ScriptedTransport()
    let client: OpenWeatherMapClient
    let service: LookupService

    init(cacheTTL: Duration = .seconds(600), requestsPerMinute: Int = 60, logger: Logger = silentLogger) throws {
        client = OpenWeatherMapClient(
            transport: transport, baseURL: "https://api.openweathermap.org", apiKey: Secret(Self.apiKey),
            units: .metric, lang: "en", timeout: .seconds(10), wallClock: { Fixture.fetchedAt })
        service = LookupService(
            upstream: client, limits: .init(cacheTTL: cacheTTL, requestsPerMinute: requestsPerMinute),
            clock: DaemonClock(clock), logger: logger)
        transport.on("/geo/1.0/direct", .ok(try Fixture.londonPlaces()))
        transport.on("/data/2.5/weather", .ok(try Fixture.london()))
    }

    func lookup(_ city: String) async throws -> WeatherObservation {
        try await service.lookup(.city(city))
    }

    /// The London fixture as a lookup of "London" answers it: named after the first of the five
    /// places the geocoder gives, with the 4 others counted.
    static func londonAnswer() throws -> WeatherObservation {
        var london = try Fixture.fetchedLondonObservation()
        london.alternatives = 4
        return london
    }

    /// The weather at the `n`th of a row of distinct points.
    func lookup(point n: Int) async throws -> WeatherObservation {
        try await service.lookup(.coordinate(Coordinate(lat: Double(n), lon: Double(n))))
    }

    /// Requests for weather (`/data/2.5/weather`) so far, and for places (`/geo/1.0/direct`).
    var weatherRequests: Int { transport.requests(matching: "/data/2.5/weather") }
    var placeRequests: Int { transport.requests(matching: "/geo/1.0/direct") }

    /// Waits until `count` more city lookups have started after `base` reads of the clock: a city
    /// lookup reads the clock twice as it starts (its places from the cache, then its weather), and
    /// joins a flight in flight before it yields the actor.
    func waitForLookupsStarted(_ count: Int, after base: Int) async {
        await clock.waitForReads(base + 2 * count)
    }
}

/// The WeatherError a lookup threw, or an issue.
private func lookupError(_ body: () async throws -> WeatherObservation, sourceLocation: SourceLocation = #_sourceLocation) async
    -> WeatherError?
{
    do {
        let observation = try await body()
        Issue.record("expected an error, got \(observation)", sourceLocation: sourceLocation)
        return nil
    } catch let error as WeatherError {
        return error
    } catch {
        Issue.record("expected a WeatherError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite("LookupService: cache")
struct LookupCacheTests {
    @Test("a lookup within cache_ttl is answered from the cache: one upstream request")
    func cacheHit() async throws {
        let h = try Harness(cacheTTL: .seconds(600))
        let first = try await h.lookup("London")
        h.clock.advance(by: .seconds(599))
        let second = try await h.lookup("London")
        #expect(first == second)
        #expect(h.transport.requestCount == 2, "one for the places, one for the weather")
    }

    @Test("after cache_ttl the lookup goes upstream again")
    func cacheExpiry() async throws {
        let h = try Harness(cacheTTL: .seconds(600))
        _ = try await h.lookup("London")
        h.clock.advance(by: .seconds(600))
        _ = try await h.lookup("London")
        #expect(h.weatherRequests == 2)
        #expect(h.placeRequests == 1, "the places stay for geocode_ttl")
    }

    @Test("city keys are case- and space-insensitive: \" london \" is \"London\"")
    func cityKeys() async throws {
        let h = try Harness()
        _ = try await h.lookup("London")
        _ = try await h.lookup(" london ")
        _ = try await h.lookup("LONDON")
        _ = try await h.lookup("New  York , US")
        _ = try await h.lookup("new york,us")
        #expect(h.placeRequests == 2)
        #expect(LookupKey.normalize(city: " New  York , US ") == "new york,us")
    }

    @Test("coordinates rounded to 0.01° share a cache entry")
    func coordinateKeys() async throws {
        let h = try Harness()
        _ = try await h.service.lookup(.coordinate(Coordinate(lat: 51.501, lon: -0.121)))
        _ = try await h.service.lookup(.coordinate(Coordinate(lat: 51.504, lon: -0.124)))
        #expect(h.transport.requestCount == 1)
        _ = try await h.service.lookup(.coordinate(Coordinate(lat: 51.506, lon: -0.124)))
        #expect(h.transport.requestCount == 2)
    }

    @Test("cache_ttl 0 disables the cache")
    func noCache() async throws {
        let h = try Harness(cacheTTL: .zero)
        _ = try await h.lookup("London")
        _ = try await h.lookup("London")
        #expect(h.weatherRequests == 2)
    }

    @Test("a failure is not cached: the next lookup asks again")
    func failuresNotCached() async throws {
        let h = try Harness()
        h.transport.on("q=Atlantis", .status(502, "<html>Bad Gateway</html>"))
        _ = await lookupError { try await h.lookup("Atlantis") }
        _ = await lookupError { try await h.lookup("Atlantis") }
        #expect(h.transport.requestCount == 2)
    }

    @Test("an unknown name is kept unknown for cache_ttl: no request storm for a typo")
    func unknownNameCachedBriefly() async throws {
        let h = try Harness(cacheTTL: .seconds(600))
        h.transport.on("tlantis", .ok(try Fixture.owm("geo_direct_empty.json")))
        for _ in 0..<3 { #expect(await lookupError { try await h.lookup("atlantis") }?.code == .notFound) }
        #expect(h.placeRequests == 1)
        h.clock.advance(by: .seconds(600))
        #expect(await lookupError { try await h.lookup("Atlantis") }?.code == .notFound)
        #expect(h.placeRequests == 2)
        #expect(h.weatherRequests == 0)
    }

    @Test("a name's places are kept for geocode_ttl, across the weather's cache_ttl")
    func placesKept() async throws {
        let h = try Harness(cacheTTL: .seconds(60))
        _ = try await h.lookup("London")
        h.clock.advance(by: .seconds(3600))
        _ = try await h.lookup("London")
        #expect(h.placeRequests == 1)
        #expect(h.weatherRequests == 2)
        h.clock.advance(by: .seconds(30 * 86400))
        _ = try await h.lookup("London")
        #expect(h.placeRequests == 2)
    }
}

@Suite("LookupService: single flight")
struct LookupSingleFlightTests {
    @Test("identical lookups in flight share one upstream request and all get the answer")
    func sharedRequest() async throws {
        let h = try Harness(cacheTTL: .zero)  // no cache: only single flight can share the request
        let gate = h.transport.on("/data/2.5/weather", .ok(try Fixture.london()), gated: true)
        let n = 8
        let leader = Task { try await h.lookup("London") }
        await h.transport.waitForRequests(1, matching: "/data/2.5/weather")
        let base = h.clock.readCount
        let followers = (1..<n).map { i in Task { try await h.lookup(i.isMultiple(of: 2) ? "london" : " London ") } }
        await h.waitForLookupsStarted(n - 1, after: base)
        gate.open()
        let expected = try Harness.londonAnswer()
        #expect(try await leader.value == expected)
        for follower in followers { #expect(try await follower.value == expected) }
        #expect(h.weatherRequests == 1)
    }

    @Test("a failure is shared by the waiters too")
    func sharedFailure() async throws {
        let h = try Harness(cacheTTL: .zero)
        let gate = h.transport.on("/data/2.5/weather", .status(502, "<html>Bad Gateway</html>"), gated: true)
        let leader = Task { try await h.lookup("London") }
        await h.transport.waitForRequests(1, matching: "/data/2.5/weather")
        let base = h.clock.readCount
        let followers = (0..<3).map { _ in Task { try await h.lookup("london") } }
        await h.waitForLookupsStarted(3, after: base)
        gate.open()
        for task in [leader] + followers {
            let error = await lookupError { try await task.value }
            #expect(error?.code == .upstreamUnavailable)
        }
        #expect(h.weatherRequests == 1)
    }

    @Test("different lookups in flight do not share a request")
    func differentLookups() async throws {
        let h = try Harness(cacheTTL: .zero)
        let gate = h.transport.on("/data/2.5/weather", .ok(try Fixture.london()), gated: true)
        let a = Task { try await h.lookup(point: 1) }
        let b = Task { try await h.lookup(point: 2) }
        await h.transport.waitForRequests(2, matching: "/data/2.5/weather")
        gate.open()
        _ = try await (a.value, b.value)
        #expect(h.transport.requestCount == 2)
    }

    @Test("a waiter that is cancelled stops waiting at once, while the leading lookup goes on")
    func cancelledWaiter() async throws {
        let h = try Harness(cacheTTL: .zero)
        let gate = h.transport.on("/data/2.5/weather", .ok(try Fixture.london()), gated: true)
        let leader = Task { try await h.lookup("London") }
        await h.transport.waitForRequests(1, matching: "/data/2.5/weather")
        let base = h.clock.readCount
        let follower = Task { try await h.lookup("London") }
        await h.waitForLookupsStarted(1, after: base)
        follower.cancel()
        await #expect(throws: CancellationError.self) { try await follower.value }
        gate.open()
        #expect(try await leader.value == (try Harness.londonAnswer()))
        #expect(h.weatherRequests == 1)
    }

    @Test("when the leading lookup is cancelled, a waiter takes the lead")
    func cancelledLeader() async throws {
        let h = try Harness(cacheTTL: .zero)
        let gate = h.transport.on("/data/2.5/weather", .ok(try Fixture.london()), gated: true)
        let leader = Task { try await h.lookup("London") }
        await h.transport.waitForRequests(1, matching: "/data/2.5/weather")
        let base = h.clock.readCount
        let follower = Task { try await h.lookup("London") }
        await h.waitForLookupsStarted(1, after: base)
        leader.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(try await follower.value == (try Harness.londonAnswer()))
        #expect(h.weatherRequests == 2)
    }
}

@Suite("LookupService: request budget and Retry-After")
struct LookupBudgetTests {
    @Test("with requests_per_minute = 3 the 4th distinct lookup within a minute is rate limited; after 60 s it goes through")
    func budget() async throws {
        let h = try Harness(requestsPerMinute: 3)
        for n in 1...3 { _ = try await h.lookup(point: n) }
        let error = await lookupError { try await h.lookup(point: 4) }
        #expect(error?.code.value == -32003)
        #expect(error?.code == .rateLimited)
        #expect(error?.details["retry_after"] == .integer(60))
        #expect(error?.json["data"]?["name"] == "rate_limited")
        #expect(h.transport.requestCount == 3)

        h.clock.advance(by: .seconds(60))
        _ = try await h.lookup(point: 4)
        #expect(h.transport.requestCount == 4)
    }

    @Test("the budget is a sliding minute: a slot frees 60 s after its request")
    func slidingWindow() async throws {
        let h = try Harness(requestsPerMinute: 3)
        _ = try await h.lookup(point: 1)
        h.clock.advance(by: .seconds(30))
        _ = try await h.lookup(point: 2)
        _ = try await h.lookup(point: 3)
        h.clock.advance(by: .seconds(29))
        #expect(await lookupError { try await h.lookup(point: 4) }?.details["retry_after"] == .integer(1))
        h.clock.advance(by: .seconds(1))
        _ = try await h.lookup(point: 4)
        #expect(await lookupError { try await h.lookup(point: 5) }?.details["retry_after"] == .integer(30))
        #expect(await h.service.requestsInLastMinute == 3)
    }

    @Test("cached answers do not spend the budget")
    func cacheSpendsNothing() async throws {
        let h = try Harness(requestsPerMinute: 2)
        for _ in 0..<5 { _ = try await h.lookup("London") }
        #expect(h.transport.requestCount == 2, "the places and the weather, once each")
    }

    @Test("a 429 with Retry-After 5 blocks every lookup for 5 s")
    func retryAfter() async throws {
        let h = try Harness()
        h.transport.on("q=London", .status(429, try Fixture.errorBody(429), headers: ["retry-after": "5"]))
        let first = await lookupError { try await h.lookup("London") }
        #expect(first?.code == .rateLimited)
        #expect(first?.details["retry_after"] == .integer(5))

        #expect(await lookupError { try await h.lookup("Paris") }?.code == .rateLimited)
        h.clock.advance(by: .seconds(4))
        let blocked = await lookupError { try await h.service.lookup(.coordinate(Coordinate(lat: 1, lon: 2))) }
        #expect(blocked?.code == .rateLimited)
        #expect(blocked?.details["retry_after"] == .integer(1))
        #expect(h.transport.requestCount == 1, "no request while blocked")

        h.clock.advance(by: .seconds(1))
        _ = try await h.lookup(point: 1)
        #expect(h.transport.requestCount == 2)
    }

    @Test("a 429 without Retry-After blocks every lookup for 60 s")
    func retryAfterDefault() async throws {
        let h = try Harness()
        h.transport.on("q=London", .status(429, try Fixture.errorBody(429)))
        #expect(await lookupError { try await h.lookup("London") }?.details["retry_after"] == .integer(60))
        h.clock.advance(by: .seconds(59))
        #expect(await lookupError { try await h.lookup("Paris") }?.details["retry_after"] == .integer(1))
        h.clock.advance(by: .seconds(1))
        _ = try await h.lookup(point: 1)
        #expect(h.transport.requestCount == 2)
    }
}

@Suite("LookupService: errors")
struct LookupErrorTests {
    @Test("an unknown city is not_found (-32001) with message \"city not found: Atlantis\"")
    func notFound() async throws {
        let h = try Harness()
        h.transport.on("q=Atlantis", .status(404, try Fixture.errorBody(404)))
        let error = await lookupError { try await h.lookup("Atlantis") }
        #expect(error?.code.value == -32001)
        #expect(error?.message == "city not found: Atlantis")
        #expect(
            error?.json.serialized == #"{"code":-32001,"message":"city not found: Atlantis","data":{"name":"not_found","city":"Atlantis"}}"#
        )
    }

    @Test("a rejected key is unauthorized (-32002)")
    func unauthorized() async throws {
        let h = try Harness()
        h.transport.on("q=London", .status(401, try Fixture.errorBody(401)))
        let error = await lookupError { try await h.lookup("London") }
        #expect(error?.code.value == -32002)
        #expect(error?.message == "OpenWeatherMap rejected the API key")
    }

    @Test("5xx, undecodable bodies and transport failures are upstream_unavailable (-32004)")
    func unavailable() async throws {
        let h = try Harness()
        h.transport.on("q=A", .status(500, "<html>Internal Server Error</html>"))
        h.transport.on("q=B", .status(200, "<html>oops</html>"))
        h.transport.on("q=C", .failure(HTTPTransportError(.timedOut, "no answer within 10 s")))
        for city in ["A", "B", "C"] {
            let error = await lookupError { try await h.lookup(city) }
            #expect(error?.code.value == -32004, "\(city)")
            #expect(error?.message.hasPrefix("OpenWeatherMap is unavailable: ") == true, "\(city)")
        }
    }

    @Test("the API key appears in no error and no log line")
    func keyNeverLeaks() async throws {
        let logs = LogRecorder()
        let h = try Harness(requestsPerMinute: 6, logger: logs.logger)
        h.transport.on("q=NotFound", .status(404, try Fixture.errorBody(404)))
        h.transport.on("q=Unauthorized", .status(401, try Fixture.errorBody(401)))
        h.transport.on("q=ServerError", .status(502, "<html>502</html>"))
        h.transport.on("q=Garbage", .status(200, "<html>"))
        h.transport.on("q=Timeout", .failure(HTTPTransportError(.timedOut, "timeout")))
        h.transport.on("q=Limited", .status(429, try Fixture.errorBody(429)))
        var errors: [WeatherError] = []
        for city in ["NotFound", "Unauthorized", "ServerError", "Garbage", "Timeout", "Limited", "AfterLimit"] {
            if let error = await lookupError({ try await h.lookup(city) }) { errors.append(error) }
        }
        #expect(errors.count == 7)
        for error in errors {
            #expect(!error.json.serialized.contains(Harness.apiKey))
            #expect(!error.description.contains(Harness.apiKey))
        }
        #expect(!logs.recorded.isEmpty)
        for line in logs.recorded { #expect(!line.contains(Harness.apiKey), "\(line)") }
    }
}
