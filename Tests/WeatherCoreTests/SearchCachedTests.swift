import Testing

@testable import TestSupport
@testable import WeatherCore

/// A search answered at once from the cache (``SearchEngine/searchCached(city:)``): the same
/// feature and the same changes, in the same order, as the same search through the lookups.
@Suite("SearchEngine: a cached search at once", .timeLimit(.minutes(1)))
struct SearchCachedTests {
    /// An engine whose cache holds London and Zocca, the overlays focused on Zocca, its publisher
    /// emptied since.
    private static func warmed() async throws -> EngineHarness {
        let h = try EngineHarness(cities: ["London,GB"], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        await h.engine.refreshCities()
        _ = try await h.engine.search(city: "London")
        _ = try await h.engine.search(city: "Zocca")
        h.publisher.reset()
        return h
    }

    @Test("the same feature, and the same state, overlays and state changes in the same order, as search(city:)")
    func sameAsSearch() async throws {
        let through = try await Self.warmed()
        let atOnce = try await Self.warmed()
        let expected = try await through.engine.search(city: "London")
        let fetches = atOnce.upstream.fetches.count
        let feature = try #require(atOnce.engine.searchCached(city: "London"))
        #expect(feature == expected)
        #expect(atOnce.upstream.fetches.count == fetches, "nothing asked upstream")
        #expect(atOnce.publisher.events == through.publisher.events)
        #expect(atOnce.publisher.events.count == 3, "loading, the overlays focused on London, populated")
        #expect(await atOnce.engine.currentOverlays == through.engine.currentOverlays)
        #expect(await atOnce.engine.currentState == through.engine.currentState)
        #expect(await atOnce.engine.currentGeneration == through.engine.currentGeneration)
        atOnce.checkInvariants()
    }

    @Test("deliver: false: the stream changes at once, its changes are published by deliverChanges(), the same and in order")
    func deliverLater() async throws {
        let through = try await Self.warmed()
        let atOnce = try await Self.warmed()
        _ = try await through.engine.search(city: "London")
        #expect(atOnce.engine.searchCached(city: "London", deliver: false) != nil)
        #expect(atOnce.publisher.events.isEmpty, "posted, not yet published")
        #expect(await atOnce.engine.currentOverlays == through.engine.currentOverlays)
        atOnce.engine.deliverChanges()
        #expect(atOnce.publisher.events == through.publisher.events)
        atOnce.engine.deliverChanges()
        #expect(atOnce.publisher.events == through.publisher.events, "each change once")
    }

    @Test("a cached answer asked again is the very same value: its fields are not copied again")
    func sameValue() async throws {
        let h = try await Self.warmed()
        let first = try #require(h.engine.searchCached(city: "London"))
        let again = try #require(h.engine.searchCached(city: " london "))
        #expect(again.observation.isSame(as: first.observation))
        let zocca = try #require(h.engine.searchCached(city: "Zocca"))
        #expect(!zocca.observation.isSame(as: first.observation))
    }

    @Test("a place as given: the same as search(place:)")
    func place() async throws {
        let through = try await Self.warmed()
        let atOnce = try await Self.warmed()
        let london = try #require(try await through.engine.places(named: "London", limit: 1).first)
        let expected = try await through.engine.search(place: london)
        #expect(atOnce.engine.searchCached(place: london) == expected)
        #expect(atOnce.publisher.events == through.publisher.events)
    }

    @Test("not cached: nil, and nothing changed: no input, no change published, nothing asked")
    func notCached() async throws {
        let h = try EngineHarness(cities: [], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        let events = h.publisher.events
        #expect(h.engine.searchCached(city: "London") == nil)
        #expect(h.publisher.events == events)
        #expect(await h.engine.currentGeneration == 0)
        #expect(h.upstream.fetches.isEmpty && h.upstream.placeFetches.isEmpty)
        // The name's places cached, its weather expired: still nil.
        _ = try await h.engine.search(city: "London")
        h.clock.advance(by: .seconds(601))
        let generation = await h.engine.currentGeneration
        #expect(h.engine.searchCached(city: "London") == nil)
        #expect(await h.engine.currentGeneration == generation)
        #expect(h.engine.searchCached(city: "Atlantis") == nil, "an unknown name")
    }
}

/// A reporter of `state.services` that can only tell through the actor.
private actor AsyncOnlyReporter: ServiceStatusReporting {
    var serviceStatuses: [ServiceStatus] { [ServiceStatus(name: "elsewhere", usable: true)] }
}

@Suite("SearchEngine: the state at once", .timeLimit(.minutes(1)))
struct StateNowTests {
    @Test("the state at once is freshState: the stream's state with the budget, providers and services as they are now")
    func sameAsFresh() async throws {
        let h = try EngineHarness(cities: ["London,GB"], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        await h.engine.refreshCities()
        _ = try await h.engine.search(city: "Zocca")
        let state = try #require(h.engine.stateNow)
        #expect(state.json == (await h.engine.freshState).json)
        #expect(state.budget.used > 0, "the requests counted")
    }

    @Test("a reporter of state.services that cannot tell at once: nil")
    func reporterThatWaits() throws {
        let h = try EngineHarness(cities: [])
        let engine = SearchEngine(
            cities: try WatchedCities(configured: [], store: h.store), gps: GPSStatus(enabled: false), lookups: h.lookups,
            publisher: h.publisher, services: [h.lookups, AsyncOnlyReporter()], logger: silentLogger)
        #expect(engine.stateNow == nil)
    }
}
