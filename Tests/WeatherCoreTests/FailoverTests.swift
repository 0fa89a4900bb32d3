import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// Two providers behind one LookupService, on a manual clock.
private struct Providers {
    let clock = ManualClock()
    let daemonClock: DaemonClock
    let owm = ProviderStub(.openWeatherMap)
    let om = ProviderStub(.openMeteo, maxPointsPerRequest: 50)
    let service: LookupService

    init(
        order: [WeatherProviderName] = [.openWeatherMap, .openMeteo], configured: [WeatherProviderName]? = nil,
        owmPerMinute: Int = 60, omPerMinute: Int = 600, omPerDay: Int? = 10_000, cacheTTL: Duration = .seconds(600)
    ) {
        daemonClock = DaemonClock(clock)
        service = LookupService(
            upstreams: [owm, om],
            limits: .init(
                cacheTTL: cacheTTL, geocodeTTL: .seconds(86_400), providers: order, configured: configured,
                budgets: [.openWeatherMap: .init(perMinute: owmPerMinute), .openMeteo: .init(perMinute: omPerMinute, perDay: omPerDay)]),
            clock: daemonClock, wallClock: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: silentLogger)
    }

    func weather(_ n: Int) async throws -> WeatherObservation {
        try await service.lookup(.coordinate(Self.point(n)))
    }

    static func point(_ n: Int) -> Coordinate { Coordinate(lat: Double(n), lon: Double(n) / 2) }

    func status(_ name: WeatherProviderName) async -> ProviderStatus? {
        await service.providerStatuses.first { $0.name == name }
    }
}

private func lookupError(_ body: () async throws -> some Any) async -> WeatherError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? WeatherError
    }
}

@Suite("Failover between providers", .timeLimit(.minutes(1)))
struct FailoverTests {
    @Test(
        "a lookup the first provider fails goes to the next: 5xx, timeout, 429 and 401 alike",
        arguments: [
            UpstreamError.unavailable("HTTP 503"), .unavailable("timed out"), .rateLimited(retryAfter: nil),
            .rateLimited(retryAfter: .seconds(5)), .unauthorized,
        ])
    func failsOver(error: UpstreamError) async throws {
        let p = Providers()
        p.owm.failNext(with: error)
        let observation = try await p.weather(1)
        #expect(observation.provider == "open-meteo")
        #expect(p.owm.calls == [.weather(Providers.point(1))] && p.om.calls == [.weather(Providers.point(1))])
        let status = try #require(await p.status(.openWeatherMap))
        #expect(!status.usable && status.error != nil)
    }

    @Test("and the other way round: Open-Meteo first, OpenWeatherMap answers when it fails")
    func otherDirection() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap])
        p.om.failNext(with: .unavailable("HTTP 502"))
        #expect(try await p.weather(1).provider == "openweathermap")
        #expect(try await p.weather(2).provider == "openweathermap", "Open-Meteo backs off")
        #expect(p.om.callCount == 1)
    }

    @Test("a failing provider is left out for its backoff, then tried first again; one answer makes it healthy")
    func backoff() async throws {
        let p = Providers()
        p.owm.fail(with: .unavailable("HTTP 500"))
        #expect(try await p.weather(1).provider == "open-meteo")
        #expect(try await p.weather(2).provider == "open-meteo")
        #expect(p.owm.callCount == 1, "not asked during its backoff")
        p.clock.advance(by: ProviderHealth.firstBackoff)
        #expect(try await p.weather(3).provider == "open-meteo")
        #expect(p.owm.callCount == 2, "tried again after 10 s, failed again")
        p.clock.advance(by: ProviderHealth.firstBackoff)
        _ = try await p.weather(4)
        #expect(p.owm.callCount == 2, "its second backoff is 20 s")
        p.owm.fail(with: nil)
        p.clock.advance(by: ProviderHealth.firstBackoff)
        #expect(try await p.weather(5).provider == "openweathermap", "first again once it answers")
        #expect(await p.status(.openWeatherMap)?.usable == true)
        #expect(await p.status(.openWeatherMap)?.error == nil)
    }

    @Test(
        "a provider only backing off is still asked before a lookup fails: both failed once, OpenWeatherMap answered again, then fails; Open-Meteo answers"
    )
    func backingOffAskedLast() async throws {
        let p = Providers()
        p.owm.failNext(with: .unavailable("HTTP 500"))
        p.om.failNext(with: .unavailable("HTTP 500"))
        #expect(await lookupError { try await p.weather(1) }?.code == .upstreamUnavailable)
        #expect(try await p.weather(2).provider == "openweathermap", "both backing off: asked in order")
        #expect(p.om.callCount == 1, "Open-Meteo was not needed")
        #expect(await p.status(.openMeteo)?.usable == false, "Open-Meteo still backs off")
        p.owm.failNext(with: .unavailable("HTTP 500"))
        #expect(try await p.weather(3).provider == "open-meteo")
        #expect(p.owm.callCount == 3 && p.om.callCount == 2)
        #expect(await p.status(.openMeteo)?.usable == true, "healthy once it answered")
    }

    @Test("the usable provider fails while the other only backs off: the other is asked and answers")
    func usableFailsOtherBackingOff() async throws {
        let p = Providers()
        p.owm.failNext(with: .unavailable("HTTP 503"))
        #expect(try await p.weather(1).provider == "open-meteo")
        p.om.failNext(with: .unavailable("HTTP 502"))
        #expect(try await p.weather(2).provider == "openweathermap", "OpenWeatherMap backs off, but is asked rather than failing")
        #expect(p.owm.callCount == 2 && p.om.callCount == 2)
    }

    @Test("a blocked provider is still never asked: the error is the failing one's")
    func blockedNotAskedOnFailure() async throws {
        let p = Providers()
        p.owm.failNext(with: .rateLimited(retryAfter: .seconds(30)))
        #expect(try await p.weather(1).provider == "open-meteo")
        p.om.failNext(with: .unavailable("HTTP 502"))
        let error = await lookupError { try await p.weather(2) }
        #expect(error?.code == .upstreamUnavailable && error?.details["provider"] == "open-meteo")
        #expect(p.owm.callCount == 1)
    }

    @Test("not_found is final: the next provider is not asked")
    func notFoundFinal() async throws {
        let p = Providers()
        let error = await lookupError { try await p.service.lookup(.city("Atlantis")) }
        #expect(error?.code == .notFound)
        #expect(p.om.callCount == 0)
        #expect(await p.status(.openWeatherMap)?.usable == true, "an answer, not a failure")
    }

    @Test("when every provider fails, the requester gets the last one's error")
    func lastError() async throws {
        let p = Providers()
        p.owm.failNext(with: .unauthorized)
        p.om.failNext(with: .unavailable("HTTP 503"))
        let error = await lookupError { try await p.weather(1) }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.message == "Open-Meteo is unavailable: HTTP 503")
        #expect(error?.details["provider"] == .string("open-meteo"))
    }

    @Test("with every provider failing, each is still tried (nothing better to do), in order")
    func allFailing() async throws {
        let p = Providers()
        p.owm.fail(with: .unavailable("down"))
        p.om.fail(with: .unavailable("down"))
        _ = await lookupError { try await p.weather(1) }
        _ = await lookupError { try await p.weather(2) }
        #expect(p.owm.callCount == 2 && p.om.callCount == 2)
    }

    @Test("a 429 blocks its provider for Retry-After: nothing is sent to it, the other answers; then it is first again")
    func blocked() async throws {
        let p = Providers()
        p.owm.failNext(with: .rateLimited(retryAfter: .seconds(30)))
        _ = try await p.weather(1)
        let status = try #require(await p.status(.openWeatherMap))
        #expect(!status.usable && status.blockedUntil == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(await p.service.budget.blockedUntil != nil, "state.budget shows the first provider's block")
        p.om.fail(with: .unavailable("down"))
        let error = await lookupError { try await p.weather(2) }
        #expect(error?.code == .upstreamUnavailable, "the block is never overridden: Open-Meteo's error")
        #expect(p.owm.callCount == 1)
        p.om.fail(with: nil)
        p.clock.advance(by: .seconds(30))
        #expect(try await p.weather(3).provider == "openweathermap")
    }

    @Test("each provider has its own budget: a spent one is skipped until its window frees")
    func ownBudgets() async throws {
        let p = Providers(owmPerMinute: 2)
        #expect(try await p.weather(1).provider == "openweathermap")
        #expect(try await p.weather(2).provider == "openweathermap")
        #expect(try await p.weather(3).provider == "open-meteo")
        let status = try #require(await p.status(.openWeatherMap))
        #expect(!status.usable && status.usedMinute == 2 && status.blockedUntil != nil)
        #expect(status.error == "request budget of 2 a minute is spent")
        p.clock.advance(by: .seconds(60))
        #expect(try await p.weather(4).provider == "openweathermap")
    }

    @Test("a spent daily budget of Open-Meteo sends its lookups to OpenWeatherMap")
    func dailyBudget() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap], omPerDay: 3)
        for n in 1...3 { #expect(try await p.weather(n).provider == "open-meteo") }
        #expect(try await p.weather(4).provider == "openweathermap")
        p.clock.advance(by: .seconds(3600))
        #expect(try await p.weather(5).provider == "openweathermap", "a day, not an hour")
        #expect(await p.status(.openMeteo)?.usedDay == 3)
        p.clock.advance(by: .seconds(86_400))
        #expect(try await p.weather(6).provider == "open-meteo")
    }

    @Test("with every budget spent the requester gets rate_limited, and no request is sent")
    func everyBudgetSpent() async throws {
        let p = Providers(owmPerMinute: 1, omPerMinute: 1)
        _ = try await p.weather(1)
        _ = try await p.weather(2)
        let error = await lookupError { try await p.weather(3) }
        #expect(error?.code == .rateLimited)
        #expect(p.owm.callCount + p.om.callCount == 2)
    }

    @Test("with every provider refusing, the requester is told the soonest retry_after, whichever provider it is")
    func soonestRetry() async throws {
        let p = Providers(owmPerMinute: 1, omPerMinute: 1)
        _ = try await p.weather(1)  // OpenWeatherMap's minute is spent now, and frees in 60 s
        p.clock.advance(by: .seconds(40))
        _ = try await p.weather(2)  // OpenWeatherMap frees in 20 s; Open-Meteo answers, and frees in 60 s
        let error = await lookupError { try await p.weather(3) }
        #expect(error?.code == .rateLimited)
        #expect(error?.details["provider"] == "openweathermap")
        #expect(error?.details["retry_after"]?.intValue == 20)
    }

    @Test("of two refusals a wait beats a missing key, a shorter wait a longer one; else the preferred provider's")
    func soonerRefusal() {
        func wait(_ seconds: Int, _ provider: String) -> WeatherError {
            WeatherError(.rateLimited, "wait", details: ["retry_after": .integer(Int64(seconds)), "provider": .string(provider)])
        }
        let noKey = WeatherError(.unauthorized, "no key")
        #expect(LookupService.sooner(nil, noKey) == noKey)
        #expect(LookupService.sooner(noKey, wait(30, "b")) == wait(30, "b"))
        #expect(LookupService.sooner(wait(30, "a"), noKey) == wait(30, "a"))
        #expect(LookupService.sooner(wait(30, "a"), wait(10, "b")) == wait(10, "b"))
        #expect(LookupService.sooner(wait(10, "a"), wait(10, "b")) == wait(10, "a"))
        #expect(LookupService.sooner(noKey, WeatherError(.unauthorized, "other")) == noKey)
    }

    @Test("places, weather and forecasts fail over alike; cached answers serve whoever gave them")
    func everyKind() async throws {
        let p = Providers()
        p.owm.fail(with: .unavailable("down"))
        let places = try await p.service.places(named: "Berlin")
        #expect(places.first?.provider == "open-meteo")
        let observation = try await p.service.lookup(.city("Berlin"))
        #expect(observation.provider == "open-meteo")
        #expect(WeatherFeature(observation: observation, source: .text).id == "geonames:\(places[0].geonamesID!)")
        let forecast = try await p.service.forecast(.city("Berlin"))
        #expect(forecast.step == ForecastStep.oneHour)
        p.owm.fail(with: nil)
        p.clock.advance(by: .seconds(300))
        #expect(try await p.service.lookup(.city("Berlin")).provider == "open-meteo", "from the cache")
    }

    @Test("a provider without its key is not asked, and state.providers says why")
    func noKey() async throws {
        let p = Providers(order: [.openMeteo], configured: [.openWeatherMap, .openMeteo])
        #expect(try await p.weather(1).provider == "open-meteo")
        #expect(p.owm.callCount == 0)
        let statuses = await p.service.providerStatuses
        #expect(statuses.map(\.name) == [.openWeatherMap, .openMeteo])
        #expect(statuses[0].usable == false && statuses[0].error == "no API key")
        #expect(statuses[1].usable == true && statuses[1].usedMinute == 1 && statuses[1].usedDay == 1)
    }

    @Test("a key given at a reload makes the provider asked again, first")
    func keyAtReload() async throws {
        let p = Providers(order: [.openMeteo], configured: [.openWeatherMap, .openMeteo])
        var config = DaemonConfig()
        config.weather.providers = [.openWeatherMap, .openMeteo]
        await p.service.update(limits: .init(config, keys: ProviderKeys(openWeatherMap: Secret("k"))))
        #expect(try await p.weather(1).provider == "openweathermap")
    }

    @Test("a status change wakes the watcher; request counts alone do not")
    func statusChanges() async throws {
        let p = Providers()
        _ = try await p.weather(1)
        p.owm.failNext(with: .unavailable("down"))
        _ = try await p.weather(2)
        #expect(await p.service.statusChanges.wait(), "woken by the failure")
        let now = p.daemonClock.now
        #expect(await p.service.nextStatusChange == now.advanced(by: ProviderHealth.firstBackoff))
    }
}

@Suite("A region grid in one request", .timeLimit(.minutes(1)))
struct LookUpTogetherTests {
    static let grid = (0..<9).map { Coordinate(lat: 50 + Double($0 / 3), lon: 10 + Double($0 % 3)) }

    @Test("Open-Meteo first: the grid's points in one request, each counted against the budget")
    func oneRequest() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap])
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { if case .success(let o)? = $0 { o.provider == "open-meteo" } else { false } })
        #expect(p.om.calls == [.together(Self.grid)])
        #expect(await p.status(.openMeteo)?.usedMinute == 9)
        let again = await p.service.lookUpTogether(Self.grid)
        #expect(again.allSatisfy { $0 != nil } && p.om.callCount == 1, "from the cache")
    }

    @Test("cached points are not asked again; a lone point is left to the ordinary lookup")
    func cachedPoints() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap])
        _ = try await p.service.lookup(.coordinate(Self.grid[4]))
        _ = await p.service.lookUpTogether(Self.grid)
        #expect(p.om.calls.last == .together(Self.grid.enumerated().filter { $0.offset != 4 }.map(\.element)))
        let lone = await p.service.lookUpTogether([Coordinate(lat: 1, lon: 1)])
        #expect(lone == [nil])
    }

    @Test("OpenWeatherMap first: nothing together, every point is left to one lookup each")
    func onePerPoint() async throws {
        let p = Providers()
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { $0 == nil })
        #expect(p.owm.callCount == 0 && p.om.callCount == 0)
    }

    @Test("a failed request leaves its points to fail over one by one when another provider is usable")
    func failedWithOther() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap])
        p.om.failNext(with: .unavailable("HTTP 503"))
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { $0 == nil })
        for point in Self.grid { #expect(try await p.service.lookup(.coordinate(point)).provider == "openweathermap") }
        #expect(p.om.callCount == 1, "Open-Meteo backs off")
    }

    @Test("a failed request leaves its points to the other provider when that one is only backing off")
    func failedWithOtherBackingOff() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap])
        p.owm.failNext(with: .unavailable("HTTP 500"))
        p.om.failNext(with: .unavailable("HTTP 500"))
        _ = await lookupError { try await p.weather(1) }
        _ = try await p.weather(2)  // Open-Meteo answers, OpenWeatherMap still backs off
        p.om.fail(with: .unavailable("HTTP 503"))
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { $0 == nil }, "no point gets an error while OpenWeatherMap was not asked")
        for point in Self.grid { #expect(try await p.service.lookup(.coordinate(point)).provider == "openweathermap") }
    }

    @Test("a failed request gives its points its error when no other provider is usable")
    func failedAlone() async throws {
        let p = Providers(order: [.openMeteo])
        p.om.failNext(with: .rateLimited(retryAfter: nil))
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { if case .failure(let e)? = $0 { e.code == .rateLimited } else { false } })
    }

    @Test("a grid larger than the budget left is not sent together")
    func overBudget() async throws {
        let p = Providers(order: [.openMeteo, .openWeatherMap], omPerMinute: 5)
        let results = await p.service.lookUpTogether(Self.grid)
        #expect(results.allSatisfy { $0 == nil } && p.om.callCount == 0)
    }
}

@Suite("ProviderHealth: budgets, blocks and backoff, event by event")
struct ProviderHealthTests {
    let clock = ManualClock()
    let daemonClock: DaemonClock
    var now: DaemonClock.Instant { daemonClock.now }

    init() {
        daemonClock = DaemonClock(clock)
    }
    static let wall = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("the backoff doubles from 10 s with each failure in a row, at most 5 minutes")
    func backoff() {
        var health = ProviderHealth(limits: .init(requestsPerMinute: 60), hasKey: true)
        var waits: [Duration] = []
        for _ in 0..<8 {
            health.failed(.unavailable("x"), message: "x", now: now, wallNow: Self.wall)
            waits.append(health.backoff)
        }
        #expect(waits == [10, 20, 40, 80, 160, 300, 300, 300].map { .seconds($0) })
        health.succeeded()
        #expect(health.backoff == .zero && health.isUsable(now: now))
    }

    @Test("standing, event by event: a failure backs off, an answer heals, a 429 and a spent budget refuse")
    func standing() {
        var health = ProviderHealth(limits: .init(requestsPerMinute: 2), hasKey: true)
        #expect(health.standing(now: now) == .usable)
        health.failed(.unavailable("x"), message: "x", now: now, wallNow: Self.wall)
        #expect(health.standing(now: now) == .backingOff)
        #expect(health.refusal(now: now) == nil, "backing off is no refusal: a request may still be sent")
        clock.advance(by: ProviderHealth.firstBackoff)
        #expect(health.standing(now: now) == .usable)
        health.failed(.unavailable("x"), message: "x", now: now, wallNow: Self.wall)
        #expect(health.standing(now: now) == .backingOff)
        health.succeeded()
        #expect(health.standing(now: now) == .usable)
        health.failed(.rateLimited(retryAfter: .seconds(5)), message: "429", now: now, wallNow: Self.wall)
        #expect(health.standing(now: now) == .refused)
        clock.advance(by: .seconds(5))
        health.prune(now: now)
        #expect(health.standing(now: now) == .usable)
        #expect(health.admit(2, now: now) == nil)
        #expect(health.standing(now: now) == .refused, "its minute's budget is spent")
        #expect(ProviderHealth(limits: .init(requestsPerMinute: 2), hasKey: false).standing(now: now) == .refused)
    }

    @Test("the plan: usable providers first, then those only backing off, then those refusing, each in the order of preference")
    func plan() {
        let order: [WeatherProviderName] = [.openWeatherMap, .openMeteo]
        var health = Dictionary(
            uniqueKeysWithValues: order.map { ($0, ProviderHealth(limits: .init(requestsPerMinute: 60), hasKey: true)) })
        #expect(ProviderHealth.plan(order, health: health, now: now) == order)
        health[.openMeteo]?.failed(.unavailable("x"), message: "x", now: now, wallNow: Self.wall)
        #expect(ProviderHealth.plan(order, health: health, now: now) == order, "a backing-off one stays in the plan, last")
        health[.openWeatherMap]?.failed(.unavailable("x"), message: "x", now: now, wallNow: Self.wall)
        #expect(ProviderHealth.plan(order, health: health, now: now) == order, "both backing off: in order")
        health[.openWeatherMap]?.succeeded()
        #expect(ProviderHealth.plan(order.reversed(), health: health, now: now) == order, "the usable one first")
        health[.openWeatherMap]?.failed(.rateLimited(retryAfter: nil), message: "429", now: now, wallNow: Self.wall)
        #expect(ProviderHealth.plan(order, health: health, now: now) == [.openMeteo, .openWeatherMap], "a refusing one last")
    }

    @Test("a batch is admitted only when the budget holds all its points")
    func batch() {
        var health = ProviderHealth(limits: .init(requestsPerMinute: 10, requestsPerDay: 12), hasKey: true)
        #expect(health.admit(9, now: now) == nil)
        #expect(health.admit(2, now: now)?.reason == .minuteBudget(10))
        #expect(health.admit(1, now: now) == nil)
        clock.advance(by: .seconds(60))
        #expect(health.admit(3, now: now)?.reason == .dayBudget(12))
        #expect(health.admit(2, now: now) == nil)
        #expect(health.status(.openMeteo, now: now, wallNow: Self.wall).usedDay == 12)
    }

    @Test("without a key nothing is admitted")
    func noKey() {
        var health = ProviderHealth(limits: .init(requestsPerMinute: 10), hasKey: false)
        #expect(health.admit(1, now: now) == .init(reason: .noKey, retryAfter: nil))
        #expect(health.nextChange(now: now) == nil)
    }
}

@Suite("SearchEngine: a region grid with Open-Meteo first", .timeLimit(.minutes(1)))
struct RegionTogetherTests {
    let clock = ManualClock()
    let om = ProviderStub(.openMeteo, maxPointsPerRequest: 50)
    let owm = ProviderStub(.openWeatherMap)
    let publisher = RecordingPublisher()
    let engine: SearchEngine

    init() throws {
        let lookups = LookupService(
            upstreams: [om, owm],
            limits: .init(
                cacheTTL: .zero, geocodeTTL: .seconds(86_400), providers: [.openMeteo, .openWeatherMap],
                budgets: [.openMeteo: .init(perMinute: 600), .openWeatherMap: .init(perMinute: 60)]),
            clock: DaemonClock(clock), logger: silentLogger)
        engine = SearchEngine(
            cities: try WatchedCities(configured: [], store: MemoryCityStore(CityChanges())), gps: GPSStatus(enabled: false),
            lookups: lookups, publisher: publisher, wallClock: { EngineHarness.startTime }, clock: DaemonClock(clock),
            logger: silentLogger)
    }

    static func region(_ lat: Double) -> MapRegion {
        MapRegion(center: Coordinate(lat: lat, lon: 10), span: Coordinate(lat: 3, lon: 3))
    }

    @Test("the grid's nine points in one request; the overlays change once, with nine features; nothing pending after")
    func oneRequest() async throws {
        let points = RegionGrid.points(of: Self.region(50), around: 1)
        let search = await engine.beginRegion(Self.region(50), points: points)
        #expect(await engine.searchRegion(search, concurrency: 4))
        #expect(om.calls == [.together(points.map(\.coordinate))] && owm.callCount == 0)
        let overlays = await engine.currentOverlays
        #expect(overlays.features.count == 9 && overlays.features.allSatisfy { $0.observation.provider == "open-meteo" })
        #expect(publisher.overlays.count == 2, "the start and the grid")
        #expect(await engine.currentState.pending == 0)
    }

    @Test("Open-Meteo failing mid-drag: the grid's points fail over to OpenWeatherMap one by one; no feature is lost")
    func failsOver() async throws {
        om.failNext(with: .unavailable("HTTP 502"))
        let points = RegionGrid.points(of: Self.region(50), around: 1)
        let search = await engine.beginRegion(Self.region(50), points: points)
        #expect(await engine.searchRegion(search, concurrency: 4))
        #expect(owm.callCount == 9)
        let overlays = await engine.currentOverlays
        #expect(overlays.features.count == 9 && overlays.features.allSatisfy { $0.observation.provider == "openweathermap" })
        #expect(await engine.currentState.pending == 0)
    }

    @Test("a superseded grid's request in flight is cancelled, its result never lands; the newer grid's does")
    func cancelled() async throws {
        om.hold()
        let first = await engine.beginRegion(Self.region(50), points: RegionGrid.points(of: Self.region(50), around: 1))
        async let landed = engine.searchRegion(first, concurrency: 4)
        await om.waitForCalls(1)
        let points = RegionGrid.points(of: Self.region(20), around: 1)
        let second = await engine.beginRegion(Self.region(20), points: points)
        #expect(await landed == false)
        #expect(om.cancelledCount == 1, "the request in flight was cancelled")
        om.release()
        #expect(await engine.searchRegion(second, concurrency: 4))
        #expect(om.calls.last == .together(points.map(\.coordinate)))
        #expect(await engine.currentOverlays.features.map(\.coordinate) == points.map(\.coordinate))
        #expect(await engine.currentState.pending == 0)
    }
}

@Suite("places: the next provider's geocoder when the first gives fewer than asked", .timeLimit(.minutes(1)))
struct MorePlacesTests {
    @Test("fewer than asked: the next geocoder is asked too, the same place from both listed once, the first's first")
    func asksNext() async throws {
        let p = Providers()
        let places = try await p.service.places(named: "Spring", limit: 5)
        #expect(places.map(\.provider) == ["openweathermap"], "\(places)")
        #expect(p.owm.calls == [.places("Spring")] && p.om.calls == [.places("Spring")])
        // Both answers are cached: asking again sends nothing.
        #expect(try await p.service.places(named: " spring ", limit: 5) == places)
        #expect(p.owm.callCount == 1 && p.om.callCount == 1)
    }

    @Test("as many as asked: the next geocoder is not asked; search never asks it")
    func enough() async throws {
        let p = Providers()
        #expect(try await p.service.places(named: "Spring", limit: 1).count == 1)
        _ = try await p.service.lookup(.city("Spring"))
        #expect(p.om.calls.allSatisfy { if case .places = $0 { false } else { true } }, "\(p.om.calls)")
    }

    @Test("the first knows none: the next one's places; neither knows it: none")
    func firstKnowsNone() async throws {
        let p = Providers()
        #expect(try await p.service.places(named: "Atlantis", limit: 5).isEmpty)
        #expect(p.om.calls == [.places("Atlantis")])
    }

    @Test("the next geocoder failing leaves the first's places")
    func nextFails() async throws {
        let p = Providers()
        p.om.fail(with: .unavailable("HTTP 503"))
        let places = try await p.service.places(named: "Spring", limit: 5)
        #expect(places.map(\.provider) == ["openweathermap"])
    }

    @Test("one provider configured: nothing else is asked")
    func oneProvider() async throws {
        let p = Providers(order: [.openWeatherMap])
        #expect(try await p.service.places(named: "Spring", limit: 5).count == 1)
        #expect(p.om.calls.isEmpty)
    }
}
