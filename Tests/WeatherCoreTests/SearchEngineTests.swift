import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// Runs `body`, expecting a WeatherError, and returns it.
func expectWeatherError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> WeatherError? {
    do {
        let value = try await body()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
    } catch let error as WeatherError {
        return error
    } catch {
        Issue.record("expected a WeatherError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite("SearchEngine: start and watched-city rounds")
struct SearchEngineCityRoundTests {
    @Test("at start with cities: running, pending = number of cities, phase loading, input cities")
    func initialWithCities() throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        let state = try #require(h.publisher.states.first)
        #expect(state.json["running"] == .bool(true))
        #expect(state.json["pending"] == .integer(2))
        #expect(state.json["phase"] == "loading")
        #expect(state.json["input"]?.serialized == #"{"kind":"cities"}"#)
        #expect(state.json["error"] == .null)
        #expect(h.publisher.overlays.first == Overlays(seq: 0, focus: nil, features: []))
    }

    @Test("at start without cities: not running, phase empty, input null")
    func initialWithoutCities() throws {
        let h = try EngineHarness(cities: [])
        let state = try #require(h.publisher.states.first)
        #expect(state.json["running"] == .bool(false))
        #expect(state.json["pending"] == .integer(0))
        #expect(state.json["phase"] == "empty")
        #expect(state.json["input"] == .null)
        #expect(h.publisher.states.count == 1)
    }

    @Test("the first round populates: phase populated, not running, overlays seq 1 with the city features")
    func firstRound() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()

        let state = await h.engine.currentState
        #expect(state.phase == .populated)
        #expect(!state.running)
        #expect(state.input == .cities)
        let overlays = await h.engine.currentOverlays
        #expect(overlays.seq == 1)
        #expect(overlays.focus == nil)
        #expect(overlays.ids == ["owm:2643743", "owm:3163858"])
        #expect(overlays.features.allSatisfy { $0.source == .city })
        #expect(overlays.json["focus"] == .null)
        #expect(h.publisher.overlays.count == 2, "the round changes the overlays once")
        #expect(h.upstream.fetchCount == 2)
        h.checkInvariants()
    }

    @Test("running stays true and the phase loading until the first round settles")
    func firstRoundStates() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        let states = h.publisher.states.map { "\($0.running) \($0.phase) \($0.pending)" }
        #expect(states.first == "true loading 2")
        #expect(states.last == "false populated 0")
        #expect(!states.contains("false loading 0"), "\(states)")
        h.checkInvariants()
    }

    @Test("a first round where no city is known settles as empty")
    func firstRoundEmpty() async throws {
        let h = try EngineHarness(cities: ["Atlantis", "Lemuria"])
        await h.engine.refreshCities()
        let state = await h.engine.currentState
        #expect(state.phase == .empty)
        #expect(state.error == nil)
        #expect(!state.running)
        h.checkInvariants()
    }

    @Test("a first round while OpenWeatherMap is down settles as error -32004")
    func firstRoundError() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        h.upstream.fail("London,GB", with: .unavailable("HTTP 503"))
        await h.engine.refreshCities()
        let state = await h.engine.currentState
        #expect(state.phase == .error)
        #expect(state.json["error"]?["code"] == .integer(-32004))
        h.checkInvariants()
    }

    @Test("a round where a city fails keeps that city's last good feature, marked stale until a refresh succeeds")
    func keepsLastGoodFeature() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        let before = await h.engine.currentOverlays
        #expect(before.features.allSatisfy { !$0.stale })

        h.upstream.fail("London,GB", with: .unavailable("timed out"))
        await h.engine.refreshCities()
        #expect(h.upstream.fetchCount(of: "London,GB") == 2)
        let after = await h.engine.currentOverlays
        var staleLondon = before.features
        staleLondon[0].stale = true
        #expect(after.features == staleLondon, "London's last good feature stays, stale; Zocca's is fresh")
        #expect(after.features[0].json["properties"]?["stale"] == .bool(true))
        #expect(after.seq == before.seq + 1, "London turned stale: a change")
        #expect(await h.engine.currentState.phase == .populated)

        // A failing round again changes nothing more; a good one makes London fresh.
        await h.engine.refreshCities()
        #expect(await h.engine.currentOverlays.seq == after.seq)
        try h.scriptFixtures()
        await h.engine.refreshCities()
        let fresh = await h.engine.currentOverlays
        #expect(fresh.features == before.features)
        #expect(fresh.seq == after.seq + 1)
        h.checkInvariants()
    }

    @Test("a later round with new weather publishes new overlays")
    func roundWithChanges() async throws {
        let h = try EngineHarness(cities: ["Oslo"])
        h.upstream.answer("Oslo", with: sampleObservation("Oslo", id: 3_143_244, temperature: 1))
        await h.engine.refreshCities()
        h.upstream.answer("Oslo", with: sampleObservation("Oslo", id: 3_143_244, temperature: 2))
        await h.engine.refreshCities()
        let overlays = await h.engine.currentOverlays
        #expect(overlays.seq == 2)
        #expect(overlays.features.first?.observation.temperature == 2)
        h.checkInvariants()
    }

    @Test("state notifications are sent only when a field changes")
    func onlyChanges() async throws {
        let h = try EngineHarness(cities: [])
        h.publisher.reset()
        let sources = await h.engine.currentState.locationSources
        await h.engine.updateLocation(gps: GPSStatus(enabled: false), location: nil, sources: sources)
        #expect(h.publisher.states.isEmpty)
        await h.engine.updateLocation(gps: GPSStatus(enabled: true, connected: true), location: nil, sources: sources)
        await h.engine.updateLocation(gps: GPSStatus(enabled: true, connected: true), location: nil, sources: sources)
        #expect(h.publisher.states.count == 1)
        #expect(h.publisher.states.first?.json["gps"]?.serialized == #"{"enabled":true,"connected":true,"last_fix":null}"#)
    }
}

@Suite("SearchEngine: searches")
struct SearchEngineSearchTests {
    @Test("a search runs then settles: running true then false, phase populated, overlays focused on the result")
    func search() async throws {
        let h = try EngineHarness(cities: [])
        try h.scriptFixtures()
        h.publisher.reset()
        let feature = try await h.engine.search(city: "London")
        #expect(feature.source == .text)
        #expect(feature.json.serialized == Fixture.specLondonFeature)

        let states = h.publisher.states
        #expect(states.first?.running == true)
        #expect(states.first?.phase == .loading)
        #expect(states.first?.json["input"]?.serialized == #"{"kind":"text","city":"London"}"#)
        #expect(states.last?.running == false)
        #expect(states.last?.phase == .populated)
        #expect(states.map(\.running) == [true, false], "\(states.map { $0.json.serialized })")

        let overlays = try #require(h.publisher.overlays.last)
        #expect(overlays.seq == 1)
        #expect(overlays.json["focus"]?.serialized == "[-0.1257,51.5085]")
        #expect(overlays.features == [feature])
        h.checkInvariants()
    }

    @Test("each search result is a new overlays change: seq + 1")
    func seqGrows() async throws {
        let h = try EngineHarness(cities: [])
        try h.scriptFixtures()
        _ = try await h.engine.search(city: "London")
        _ = try await h.engine.search(city: "London")
        _ = try await h.engine.search(city: "Zocca")
        #expect(await h.engine.currentOverlays.seq == 3)
        #expect(await h.engine.currentOverlays.ids == ["owm:3163858"])
        h.checkInvariants()
    }

    @Test("a search for an unknown city: the requester gets -32001, the phase is empty without error")
    func notFound() async throws {
        let h = try EngineHarness(cities: [])
        let error = await expectWeatherError { try await h.engine.search(city: "Atlantis") }
        #expect(error?.code.value == -32001)
        #expect(error?.message == "city not found: Atlantis")
        let state = await h.engine.currentState
        #expect(state.phase == .empty)
        #expect(state.json["error"] == .null)
        #expect(!state.running)
        #expect(await h.engine.currentOverlays.focus == nil)
        h.checkInvariants()
    }

    @Test("a search while OpenWeatherMap is down: phase error with {code -32004}")
    func upstreamFailure() async throws {
        let h = try EngineHarness(cities: [])
        h.upstream.fail("London", with: .unavailable("HTTP 502"))
        let error = await expectWeatherError { try await h.engine.search(city: "London") }
        #expect(error?.code == .upstreamUnavailable)
        let state = await h.engine.currentState
        #expect(state.phase == .error)
        #expect(state.json["error"]?["code"] == .integer(-32004))
        #expect(state.json["error"]?["message"] == .string(error?.message ?? "?"))
        h.checkInvariants()
    }

    @Test("a successful search after a failure clears the error")
    func errorCleared() async throws {
        let h = try EngineHarness(cities: [])
        h.upstream.fail("London", with: .unauthorized)
        _ = await expectWeatherError { try await h.engine.search(city: "London") }
        #expect(await h.engine.currentState.error?.code == .unauthorized)
        try h.scriptFixtures()
        _ = try await h.engine.search(city: "London")
        let state = await h.engine.currentState
        #expect(state.phase == .populated)
        #expect(state.error == nil)
        h.checkInvariants()
    }

    @Test("latest wins: an older search that answers last reaches its requester but not the overlays")
    func latestWins() async throws {
        let h = try EngineHarness(cities: [])
        let paris = sampleObservation("Paris", id: 2_988_507, lat: 48.8534, lon: 2.3488)
        let oslo = sampleObservation("Oslo", id: 3_143_244, lat: 59.9127, lon: 10.7461)
        let gateA = h.upstream.script(.city("Paris"), .success(paris), gated: true)
        h.upstream.answer("Oslo", with: oslo)

        let a = Task { try await h.engine.search(city: "Paris") }
        await h.upstream.waitForFetches(1)
        let b = try await h.engine.search(city: "Oslo")
        #expect(b.id == "owm:3143244")
        let whileAPending = await h.engine.currentState
        #expect(whileAPending.running, "A is still in flight")
        #expect(whileAPending.phase == .populated)
        let overlaysOfB = await h.engine.currentOverlays

        gateA.open()
        let aFeature = try await a.value
        #expect(aFeature.id == "owm:2988507", "A's requester still gets A's feature")

        let final = await h.engine.currentState
        #expect(!final.running)
        #expect(final.phase == .populated)
        #expect(final.input == .text(city: "Oslo"))
        #expect(await h.engine.currentOverlays == overlaysOfB)
        #expect(overlaysOfB.ids == ["owm:3143244"])
        #expect(overlaysOfB.focus == Coordinate(lat: 59.9127, lon: 10.7461))
        #expect(!h.publisher.overlays.contains { $0.ids.contains("owm:2988507") }, "A never lands")
        let runningFlags = h.publisher.states.dropFirst().map(\.running)
        #expect(
            runningFlags.dropLast().allSatisfy { $0 } && runningFlags.last == false,
            "running is false only when both finished: \(runningFlags)")
        h.checkInvariants()
    }

    @Test("entered searches take the stream in the order they entered, whatever order their lookups complete in")
    func enteredOrder() async throws {
        let h = try EngineHarness(cities: [])
        try h.scriptFixtures()
        let london = await h.engine.enter(search: "London")
        let zocca = await h.engine.enter(search: "Zocca")
        let entered = await h.engine.currentState
        #expect(entered.pending == 2 && entered.phase == .loading)
        #expect(entered.input == .text(city: "Zocca"))
        // Zocca, the later, completes first; London's answer still reaches its requester but not the map.
        _ = try await h.engine.complete(zocca)
        #expect(await h.engine.currentState.pending == 1)
        let londonFeature = try await h.engine.complete(london)
        #expect(londonFeature.id == "owm:2643743")
        let final = await h.engine.currentState
        #expect(final.pending == 0 && final.phase == .populated)
        #expect(await h.engine.currentOverlays.ids == ["owm:3163858"])
        h.checkInvariants()
    }

    @Test("an entered search whose requester went away before its lookup settles once: pending back to 0")
    func enteredThenCancelled() async throws {
        let h = try EngineHarness(cities: [])
        try h.scriptFixtures()
        let search = await h.engine.enter(search: "London")
        let completion = Task { [engine = h.engine] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.complete(search)
        }
        await #expect(throws: CancellationError.self) { try await completion.value }
        let state = await h.engine.currentState
        #expect(state.pending == 0)
        #expect(state.phase == .empty)
        #expect(h.upstream.fetchCount == 0, "nothing is sent for a requester that went away")
        h.checkInvariants()
    }

    @Test("latest wins: a superseded failure does not turn the phase to error")
    func supersededFailure() async throws {
        let h = try EngineHarness(cities: [])
        let gateA = h.upstream.script(.city("Paris"), .failure(.unavailable("HTTP 500")), gated: true)
        h.upstream.answer("Oslo", with: sampleObservation("Oslo", id: 3_143_244))
        let a = Task { try await h.engine.search(city: "Paris") }
        await h.upstream.waitForFetches(1)
        _ = try await h.engine.search(city: "Oslo")
        gateA.open()
        let error = await expectWeatherError { try await a.value }
        #expect(error?.code == .upstreamUnavailable, "A's requester gets A's error")
        let state = await h.engine.currentState
        #expect(state.phase == .populated)
        #expect(state.error == nil)
        h.checkInvariants()
    }

    @Test("an interactive feature with the id of a watched city appears once, as the interactive one")
    func dedupeWithWatched() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        _ = try await h.engine.search(city: "london")
        let overlays = await h.engine.currentOverlays
        #expect(overlays.ids == ["owm:3163858", "owm:2643743"])
        #expect(overlays.features.first { $0.id == "owm:2643743" }?.source == .text)
        h.checkInvariants()
    }

    @Test("after an interactive search, city rounds keep its phase, input and focus-free overlays")
    func roundAfterSearch() async throws {
        let h = try EngineHarness(cities: ["Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        _ = try await h.engine.search(city: "London")
        h.upstream.answer("Zocca,IT", with: sampleObservation("Zocca", id: 3_163_858, temperature: 30))
        await h.engine.refreshCities()
        let state = await h.engine.currentState
        #expect(state.input == .text(city: "London"))
        #expect(state.phase == .populated)
        let overlays = await h.engine.currentOverlays
        #expect(overlays.focus == nil, "a city refresh must not move the map")
        #expect(overlays.ids == ["owm:3163858", "owm:2643743"])
        h.checkInvariants()
    }

    @Test("a city round that changes no feature takes no new seq, even though focus would go back to null")
    func unchangedRoundAfterSearch() async throws {
        let h = try EngineHarness(cities: ["Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        _ = try await h.engine.search(city: "London")
        let before = await h.engine.currentOverlays
        #expect(before.focus != nil)
        await h.engine.refreshCities()
        #expect(await h.engine.currentOverlays == before, "the same features: no change")
        #expect(h.publisher.overlays.last == before)
        h.upstream.answer("Zocca,IT", with: sampleObservation("Zocca", id: 3_163_858, temperature: 30))
        await h.engine.refreshCities()
        let after = await h.engine.currentOverlays
        #expect(after.seq == before.seq + 1 && after.focus == nil, "a changed feature is a change, without focus")
        h.checkInvariants()
    }
}

@Suite("SearchEngine: cities.add and cities.remove")
struct SearchEngineCityChangeTests {
    @Test("addCity looks the city up, stores it before returning and shows its feature")
    func add() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        let list = try await h.engine.addCity("Zocca")
        #expect(list == ["London,GB", "Zocca"])
        #expect(h.store.stored == CityChanges(added: ["Zocca"]))
        #expect(h.store.saveCount == 1)
        #expect(await h.engine.watchedCities == ["London,GB", "Zocca"])
        let overlays = await h.engine.currentOverlays
        #expect(overlays.ids == ["owm:2643743", "owm:3163858"])
        #expect(overlays.features.allSatisfy { $0.source == .city })
        h.checkInvariants()
    }

    @Test("adding a city with the name of a watched one in another country shows both")
    func addSameNameOtherCountry() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        try h.scriptFixtures()
        h.upstream.answer("London,CA", with: sampleObservation("London", id: 6_058_560, country: "CA", lat: 42.9834, lon: -81.233))
        await h.engine.refreshCities()
        _ = try await h.engine.addCity("London,CA")
        let overlays = await h.engine.currentOverlays
        #expect(overlays.ids == ["owm:2643743", "owm:6058560"])
        h.checkInvariants()
    }

    @Test("an unknown city is refused with not_found and nothing is stored")
    func addUnknown() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        let error = await expectWeatherError { try await h.engine.addCity("Atlantis") }
        #expect(error?.code.value == -32001)
        #expect(h.store.saveCount == 0)
        #expect(await h.engine.watchedCities == ["London,GB"])
    }

    @Test("when OpenWeatherMap is down the city is added anyway and looked up next round")
    func addWhileDown() async throws {
        let h = try EngineHarness(cities: [])
        h.upstream.fail("Oslo", with: .unavailable("HTTP 503"))
        #expect(try await h.engine.addCity("Oslo") == ["Oslo"])
        #expect(h.store.stored.added == ["Oslo"])
        #expect(await h.engine.currentOverlays.features.isEmpty)
        h.upstream.answer("Oslo", with: sampleObservation("Oslo", id: 3_143_244))
        await h.engine.refreshCities()
        #expect(await h.engine.currentOverlays.ids == ["owm:3143244"])
        h.checkInvariants()
    }

    @Test("adding a watched city (in any case or spacing) changes nothing")
    func addWatched() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        #expect(try await h.engine.addCity(" london , gb") == ["London,GB"])
        #expect(h.store.saveCount == 0)
        #expect(h.upstream.fetchCount == 0)
    }

    @Test("a store that cannot save refuses the change")
    func addStoreFails() async throws {
        let h = try EngineHarness(cities: [])
        h.upstream.answer("Oslo", with: sampleObservation("Oslo", id: 3_143_244))
        h.store.failSaves()
        let error = await expectWeatherError { try await h.engine.addCity("Oslo") }
        #expect(error?.code == .internalError)
        #expect(await h.engine.watchedCities == [])
        #expect(await h.engine.currentOverlays.features.isEmpty)
    }

    @Test("removeCity stores the removal and takes the city's feature off the overlays")
    func remove() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        await h.engine.refreshCities()
        #expect(try await h.engine.removeCity("london,gb") == ["Zocca,IT"])
        #expect(h.store.stored == CityChanges(removed: ["london,gb"]))
        #expect(await h.engine.currentOverlays.ids == ["owm:3163858"])
        h.checkInvariants()
    }

    @Test("removing a city that is not watched is invalid_params and stores nothing")
    func removeUnknown() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        let error = await expectWeatherError { try await h.engine.removeCity("Paris") }
        #expect(error?.code.value == -32602)
        #expect(h.store.saveCount == 0)
    }

    @Test("stored changes apply on top of the configured cities at start")
    func storedChangesAtStart() async throws {
        let h = try EngineHarness(cities: ["Seoul,KR", "London,GB"], stored: CityChanges(added: ["Oslo"], removed: ["London,GB"]))
        #expect(await h.engine.watchedCities == ["Seoul,KR", "Oslo"])
        #expect(h.publisher.states.first?.pending == 2)
        #expect(h.store.saveCount == 0)
    }
}

@Suite("Watched cities: CityChanges and WatchedCities")
struct WatchedCitiesTests {
    @Test("effective cities are the configured ones less the removed, then the added")
    func apply() {
        let changes = CityChanges(added: ["Oslo", "Paris,FR"], removed: ["london,gb"])
        #expect(changes.apply(to: ["Seoul,KR", "London,GB"]) == ["Seoul,KR", "Oslo", "Paris,FR"])
    }

    @Test("effective cities are de-duplicated case- and space-insensitively, first spelling kept")
    func applyDedupes() {
        let changes = CityChanges(added: ["seoul,kr", "Oslo", " OSLO "])
        #expect(changes.apply(to: ["Seoul,KR", "Seoul, KR"]) == ["Seoul,KR", "Oslo"])
    }

    @Test("CityChanges round-trips through JSON; a wrong shape is refused")
    func changesJSON() throws {
        let changes = CityChanges(added: ["Oslo"], removed: ["London,GB"])
        #expect(changes.json.serialized == #"{"added":["Oslo"],"removed":["London,GB"]}"#)
        #expect(CityChanges(json: changes.json) == changes)
        #expect(CityChanges(json: try json(#"{"added":["Oslo"]}"#)) == nil)
    }

    @Test("re-adding a removed configured city restores it in its configured place")
    func readdConfigured() async throws {
        let store = MemoryCityStore()
        let cities = try WatchedCities(configured: ["Seoul,KR", "London,GB"], store: store)
        #expect(try await cities.remove("London,GB") == ["Seoul,KR"])
        #expect(try await cities.add("Oslo") == ["Seoul,KR", "Oslo"])
        #expect(try await cities.add("london,gb") == ["Seoul,KR", "London,GB", "Oslo"])
        #expect(store.stored == CityChanges(added: ["Oslo"], removed: []))
    }

    @Test("removing an added city forgets it; removing a configured one records it")
    func removeKinds() async throws {
        let store = MemoryCityStore()
        let cities = try WatchedCities(configured: ["Seoul,KR"], store: store)
        _ = try await cities.add("Oslo")
        #expect(try await cities.remove("OSLO") == ["Seoul,KR"])
        #expect(store.stored == CityChanges())
        #expect(try await cities.remove("Seoul,KR") == [])
        #expect(store.stored == CityChanges(removed: ["Seoul,KR"]))
    }

    @Test("a reload keeps the stored changes on top of the new configuration")
    func reconfigure() throws {
        let cities = try WatchedCities(configured: ["Seoul,KR"], store: MemoryCityStore(CityChanges(added: ["Oslo"], removed: ["Rome"])))
        #expect(cities.reconfigure(["Rome", "Lima"]) == ["Lima", "Oslo"])
    }

    @Test("changes are made one at a time, in the order asked: each is stored before the next is made")
    func oneAtATime() async throws {
        let store = MemoryCityStore()
        store.holdSaves()
        let cities = try WatchedCities(configured: [], store: store)
        async let first = cities.add("Oslo")
        await store.waitForHeldSaves(1)
        async let second = cities.add("Lima")
        #expect(cities.effective == [], "nothing shows before it is stored")
        store.releaseSave()
        #expect(try await first == ["Oslo"])
        await store.waitForHeldSaves(1)
        #expect(store.stored == CityChanges(added: ["Oslo"]), "the second change waited for the first")
        store.releaseSave()
        #expect(try await second == ["Oslo", "Lima"])
        #expect(store.saveCount == 2 && cities.effective == ["Oslo", "Lima"])
    }

    @Test("a change that cannot be stored is not made, and the next is made on what is stored")
    func failedSave() async throws {
        let store = MemoryCityStore()
        let cities = try WatchedCities(configured: ["Seoul,KR"], store: store)
        store.failSaves()
        await #expect(throws: WeatherError.self) { try await cities.add("Oslo") }
        #expect(cities.effective == ["Seoul,KR"])
    }
}

@Suite("SearchEngine: the request budget in the state", .timeLimit(.minutes(1)))
struct BudgetStateTests {
    @Test("a 429 block shows in state.budget, with a notification when it starts and one when it ends")
    func block() async throws {
        let h = try EngineHarness(cities: [])
        h.upstream.fail("Atlantis", with: .rateLimited(retryAfter: .seconds(5)))
        let watcher = Task { [lookups = h.lookups, engine = h.engine, clock = h.clock] in
            await BudgetWatcher(lookups: lookups, engine: engine, clock: DaemonClock(clock)).run()
        }
        await #expect(throws: WeatherError.self) { try await h.engine.search(city: "Atlantis") }
        let started = try #require(h.publisher.states.last { $0.budget.blockedUntil != nil }, "a state with the block")
        #expect(started.budget.used == 2 && started.budget.requestsPerMinute == 1000, "the places and the weather")
        #expect(await h.engine.freshState.budget.blockedUntil != nil)
        // The harness's wall clock stands still: the end of the block is the first unblocked state
        // published after the blocked one (the states before the block were unblocked too).
        let blocked = h.publisher.stateCount
        await h.clock.waitForSleepers(1)  // the watcher sleeps until the block ends
        h.clock.advance(by: .seconds(5))
        await untilCancelled { [publisher = h.publisher] in
            await publisher.waitForState(after: blocked) { $0.budget.blockedUntil == nil }
        }
        #expect(h.publisher.states.last?.budget.blockedUntil == nil)
        watcher.cancel()
        await watcher.value
        h.checkInvariants()
    }

    @Test("budget.used alone is no news: no state notification")
    func usedAlone() async throws {
        let h = try EngineHarness(cities: [])
        try h.scriptFixtures()
        await h.engine.refreshBudget()  // state.providers as the daemon starts with it
        _ = try await h.engine.search(city: "London")
        let published = h.publisher.states.count
        #expect(await h.engine.freshState.budget.used == 2, "the places and the weather")
        await h.engine.refreshBudget()
        #expect(h.publisher.states.count == published)
    }
}
