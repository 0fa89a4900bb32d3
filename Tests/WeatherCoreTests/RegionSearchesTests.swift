import Testing

@testable import TestSupport
@testable import WeatherCore

private let londonID = "owm:2643743"

// MARK: - Debounce and near-duplicates

@Suite("RegionSearches: debounce", .timeLimit(.minutes(1)))
struct RegionSearchesDebounceTests {
    @Test("a burst of events starts its search only after a whole debounce of quiet after the last one: 1 ms before, nothing")
    func debounceCountsFromTheLastEvent() async throws {
        let h = try RegionHarness()
        let last = mapRegion(30, 40)
        h.scriptGrid(last)
        await h.submit(mapRegion(10, 20))
        await h.advanceWhileDebouncing(by: .milliseconds(100))
        await h.submit(mapRegion(20, 30))
        await h.advanceWhileDebouncing(by: .milliseconds(100))
        await h.submit(last)

        // 249 ms after the last event: the first event's deadline has passed, the last one's not.
        await h.advanceWhileDebouncing(by: .milliseconds(249))
        #expect(h.upstream.fetchCount == 0)
        #expect(await h.engine.engine.currentGeneration == 0, "no search began")

        h.debounce.advance(by: .milliseconds(1))
        await h.waitForFetches(9)
        #expect(h.gridFetches(last) == 9, "the last region's grid is looked up")
    }

    @Test("a burst of events within the debounce starts exactly one search, of the last region of the burst")
    func burstStartsOneSearchOfTheLastRegion() async throws {
        let h = try RegionHarness()
        let burst = [mapRegion(10, 20), mapRegion(11, 21), mapRegion(12, 22, span: (2, 2)), mapRegion(13, 23)]
        for r in burst { h.scriptGrid(r) }
        for r in burst {
            await h.submit(r)
            await h.advanceWhileDebouncing(by: .milliseconds(200))
        }
        h.debounce.advance(by: .milliseconds(50))
        await h.waitUntilSettled(burst[3])

        #expect(await h.engine.engine.currentGeneration == 1, "one search")
        #expect(h.upstream.fetchCount == 9)
        #expect(h.gridFetches(burst[3]) == 9)
        #expect(h.publisher.states.filter { $0.input != nil }.allSatisfy { $0.input == .region(burst[3]) })
        #expect(h.publisher.overlays.count == 2, "seq 0 at start, then the one search")
        h.engine.checkInvariants()
    }

    @Test("a text search during the debounce window cancels the pending region: no grid starts after the debounce")
    func textDuringDebounceCancelsTheRegion() async throws {
        let h = try RegionHarness()
        try h.engine.scriptFixtures()
        let dropped = mapRegion(10, 20)
        let later = mapRegion(-20, -40)
        h.scriptGrid(dropped)
        h.scriptGrid(later, base: 2000)
        await h.submit(dropped)
        await h.advanceWhileDebouncing(by: .milliseconds(100))
        let london = try await h.engine.engine.search(city: "London")
        h.debounce.advance(by: .milliseconds(150))

        // A later region is searched, so the dropped one has been dealt with by then.
        await h.submit(later)
        h.passDebounce()
        await h.waitUntilSettled(later)
        #expect(h.gridFetches(dropped) == 0, "the cancelled region looked nothing up")
        #expect(await h.engine.engine.currentGeneration == 2, "the text search and the later region only")
        let inputs = h.publisher.states.compactMap(\.input)
        #expect(!inputs.contains(.region(dropped)))
        #expect(h.publisher.overlays.map(\.focus).contains(london.coordinate))
        h.engine.checkInvariants()
    }

    @Test("a region whose centre moved less than a tenth of its span from the last searched region starts no search")
    func negligibleMoveIsIgnored() async throws {
        let h = try RegionHarness()
        let first = mapRegion(10, 20)
        let near = mapRegion(10.29, 19.71)
        let far = mapRegion(-20, -40)
        h.scriptGrid(first)
        h.scriptGrid(near, base: 2000)
        h.scriptGrid(far, base: 3000)
        await h.submit(first)
        h.passDebounce()
        await h.waitUntilSettled(first)

        await h.submit(near)
        h.passDebounce()
        // A far region is searched next, so the near one has been dealt with by then.
        await h.submit(far)
        h.passDebounce()
        await h.waitUntilSettled(far)
        #expect(await h.engine.engine.currentGeneration == 2, "the first and the far region only")
        #expect(h.upstream.fetchCount(of: .coordinate(near.center)) == 0)
        #expect(!h.publisher.states.contains { $0.input == .region(near) })
        #expect(h.upstream.fetchCount == 18)
    }

    @Test(
        "a region whose centre moved a tenth of its span or more from the last searched region starts a search",
        arguments: [mapRegion(10.5, 20, span: (5, 5)), mapRegion(10, 19.5, span: (5, 5)), mapRegion(14, 24, span: (5, 5))])
    func realMoveIsSearched(_ next: MapRegion) async throws {
        let h = try RegionHarness()
        let first = mapRegion(10, 20, span: (5, 5))
        h.scriptGrid(first)
        await h.submit(first)
        h.passDebounce()
        await h.waitUntilSettled(first)

        h.scriptGrid(next, base: 2000)
        await h.submit(next)
        h.passDebounce()
        await h.waitUntilSettled(next)
        #expect(await h.engine.engine.currentGeneration == 2)
        #expect(h.upstream.fetchCount(of: .coordinate(next.center)) == 1)
    }
}

// MARK: - One grid

@Suite("RegionSearches: the grid", .timeLimit(.minutes(1)))
struct RegionSearchesGridTests {
    @Test(
        "a region search sets pending to the grid size, running true, phase loading, input kind region",
        arguments: [0, 1, 2])
    func beginsWithTheGridPending(around: Int) async throws {
        let h = try RegionHarness(around: around, concurrency: 4)
        let r = mapRegion(10, 20)
        let gates = h.scriptGrid(r, gated: true)
        await h.submit(r)
        h.passDebounce()
        await h.waitForFetches(min(4, gates.count))

        let size = (2 * around + 1) * (2 * around + 1)
        #expect(gates.count == size)
        let state = await h.engine.engine.currentState
        #expect(state.pending == size)
        #expect(state.running)
        #expect(state.phase == .loading)
        #expect(state.json["running"] == .bool(true))
        #expect(state.json["pending"] == .integer(Int64(size)))
        #expect(state.json["input"]?["kind"] == "region")
        #expect(state.input == .region(r))
        for gate in gates { gate.open() }
        await h.waitUntilSettled(r)
        #expect(h.upstream.fetchCount == size)
    }

    @Test("running goes false and pending to 0 once the whole grid has settled, not before")
    func settlesOnceEveryPointAnswered() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        let gates = h.scriptGrid(r, gated: true)
        await h.submit(r)
        h.passDebounce()
        await h.waitForFetches(4)
        for gate in gates.dropLast() { gate.open() }
        await h.waitForState { $0.pending == 1 }
        let waiting = await h.engine.engine.currentState
        #expect(waiting.running)
        #expect(waiting.phase == .loading)

        gates.last?.open()
        await h.waitUntilSettled(r)
        let state = await h.engine.engine.currentState
        #expect(!state.running)
        #expect(state.pending == 0)
        #expect(state.phase == .populated)
        #expect(state.input == .region(r))
        h.engine.checkInvariants()
    }

    @Test("at most `concurrency` lookups of a grid are in flight at once", arguments: [1, 2, 4])
    func concurrencyIsBounded(concurrency: Int) async throws {
        let h = try RegionHarness(concurrency: concurrency)
        let r = mapRegion(10, 20)
        let gates = h.scriptGrid(r, gated: true)
        let points = h.points(r)
        await h.submit(r)
        h.passDebounce()
        // Lets the lookups through one at a time, in the order they were sent.
        for started in concurrency...points.count {
            await h.waitForFetches(started)
            #expect(h.upstream.inFlight <= concurrency)
            guard case .coordinate(let c) = h.upstream.fetches[started - concurrency],
                let index = points.firstIndex(where: { $0.coordinate == c })
            else {
                Issue.record("unexpected fetch")
                return
            }
            gates[index].open()
        }
        for gate in gates { gate.open() }
        await h.waitUntilSettled(r)
        #expect(h.upstream.maxInFlight == concurrency)
        #expect(h.upstream.fetchCount == 9)
    }

    @Test("the overlays change once, when the whole grid has settled: seq + 1, focus null")
    func overlaysChangeOnce() async throws {
        let h = try RegionHarness(concurrency: 2)
        let r = mapRegion(10, 20)
        let gates = h.scriptGrid(r, gated: true)
        await h.submit(r)
        h.passDebounce()
        await h.waitForFetches(2)
        for (index, gate) in gates.enumerated() {
            #expect(h.publisher.overlays.count == 1, "no overlays before the grid settled (point \(index))")
            gate.open()
        }
        await h.waitUntilSettled(r)

        let overlays = h.publisher.overlays
        #expect(overlays.map(\.seq) == [0, 1])
        let last = try #require(overlays.last)
        #expect(last.focus == nil)
        #expect(last.json["focus"] == .null)
        #expect(last.ids == (0..<9).map { "owm:\(1000 + $0)" })
        #expect(await h.engine.engine.currentOverlays == last)
    }

    @Test("features are de-duplicated by id: points answered by the same city appear once, with the centre's source")
    func deduplicatedByID() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        // The centre and points 1…4 are all the same station; 5…8 another.
        h.scriptGrid(r) { index, _ in
            index < 5
                ? .success(sampleObservation("Near", id: 100, lat: 10, lon: 20))
                : .success(sampleObservation("Far", id: 200, lat: 11, lon: 21))
        }
        await h.submit(r)
        h.passDebounce()
        await h.waitUntilSettled(r)

        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == ["owm:100", "owm:200"])
        #expect(overlays.features.map(\.source) == [.region, .around])
        #expect(h.upstream.fetchCount == 9)
    }

    @Test("points that failed are left out; the others land and the phase is populated")
    func failedPointsLeftOut() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        h.scriptGrid(r) { index, point in
            switch index {
            case 3: .failure(.unavailable("HTTP 503"))
            case 5: .failure(.notFound(message: nil))
            case 7: .failure(.unauthorized)
            default: nil
            }
        }
        await h.submit(r)
        h.passDebounce()
        await h.waitUntilSettled(r)

        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == [0, 1, 2, 4, 6, 8].map { "owm:\(1000 + $0)" })
        let state = await h.engine.engine.currentState
        #expect(state.phase == .populated)
        #expect(state.error == nil)
        h.engine.checkInvariants()
    }

    @Test("when every point fails the phase is error with that error, and no grid feature lands")
    func allPointsFail() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        h.scriptGrid(r) { _, _ in .failure(.unavailable("HTTP 503")) }
        await h.submit(r)
        h.passDebounce()
        await h.waitUntilSettled(r)

        let state = await h.engine.engine.currentState
        #expect(state.phase == .error)
        #expect(state.error?.code == .upstreamUnavailable)
        #expect(state.json["error"]?["code"] == .integer(-32004))
        #expect(!state.running)
        #expect(await h.engine.engine.currentOverlays.features.isEmpty)
        h.engine.checkInvariants()
    }

    @Test("when every point fails and one failure is not not_found, the phase is error with that one")
    func allFailTheRealErrorWins() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        h.scriptGrid(r) { index, _ in index == 6 ? .failure(.unauthorized) : .failure(.notFound(message: nil)) }
        await h.submit(r)
        h.passDebounce()
        await h.waitUntilSettled(r)

        let state = await h.engine.engine.currentState
        #expect(state.phase == .error)
        #expect(state.error?.code == .unauthorized)
    }

    @Test("when no point has weather (all not_found) the phase is empty, not error")
    func allNotFoundIsEmpty() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20)
        await h.submit(r)  // nothing scripted: every point is not found
        h.passDebounce()
        await h.waitUntilSettled(r)

        let state = await h.engine.engine.currentState
        #expect(state.phase == .empty)
        #expect(state.error == nil)
        #expect(h.upstream.fetchCount == 9)
        h.engine.checkInvariants()
    }
}

// MARK: - Latest wins

@Suite("RegionSearches: latest wins", .timeLimit(.minutes(1)))
struct RegionSearchesSupersededTests {
    /// A grid of 9 points (2 in flight, held) superseded by a text search for London; then the
    /// held lookups answer. Returns once everything settled.
    private func gridSupersededByText() async throws -> (RegionHarness, MapRegion, WeatherFeature) {
        let h = try RegionHarness(concurrency: 2)
        try h.engine.scriptFixtures()
        let r = mapRegion(10, 20)
        let gates = h.scriptGrid(r, gated: true)
        await h.submit(r)
        h.passDebounce()
        await h.waitForFetches(2)

        let london = try await h.engine.engine.search(city: "London")
        for gate in gates { gate.open() }
        await h.waitForState { $0.input == .text(city: "London") && $0.pending == 0 }
        return (h, r, london)
    }

    @Test("a text search started while a grid is in flight supersedes it: the grid's queued lookups are never sent")
    func textStopsQueuedLookups() async throws {
        let (h, r, _) = try await gridSupersededByText()
        #expect(h.gridFetches(r) == 2, "only the 2 lookups already in flight were sent")
        #expect(h.upstream.fetchCount == 3)
        #expect(h.upstream.fetchCount(of: "London") == 1)
    }

    @Test("a superseded grid's late answers never land: the overlays keep the text result, focused on it")
    func lateGridAnswersNeverLand() async throws {
        let (h, _, london) = try await gridSupersededByText()
        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == [londonID])
        #expect(overlays.focus == london.coordinate)
        #expect(h.publisher.overlays.map(\.seq) == [0, 1], "only the text result changed the overlays")
        let state = await h.engine.engine.currentState
        #expect(state.input == .text(city: "London"))
        #expect(state.phase == .populated)
    }

    @Test("pending returns to 0 and running to false once a superseded grid's lookups finished")
    func pendingReturnsToZero() async throws {
        let (h, _, _) = try await gridSupersededByText()
        let state = await h.engine.engine.currentState
        #expect(state.pending == 0)
        #expect(!state.running)
        h.engine.checkInvariants()
    }

    @Test("a newer region supersedes an older grid: its queued lookups are never sent and its answers never land")
    func newerRegionSupersedesOlderGrid() async throws {
        let h = try RegionHarness(concurrency: 2)
        let older = mapRegion(10, 20)
        let newer = mapRegion(-20, -40)
        let gates = h.scriptGrid(older, base: 1000, gated: true)
        h.scriptGrid(newer, base: 2000)
        await h.submit(older)
        h.passDebounce()
        await h.waitForFetches(2)

        await h.submit(newer)
        h.passDebounce()
        await h.waitForState { $0.input == .region(newer) && $0.phase == .populated }
        for gate in gates { gate.open() }
        await h.waitUntilSettled(newer)

        #expect(h.gridFetches(older) == 2, "only the 2 lookups already in flight were sent")
        #expect(h.gridFetches(newer) == 9)
        let overlays = await h.engine.engine.currentOverlays
        #expect(overlays.ids == (0..<9).map { "owm:\(2000 + $0)" })
        #expect(overlays.focus == nil)
        #expect(h.publisher.overlays.map(\.seq) == [0, 1], "only the newer grid changed the overlays")
        #expect(!h.publisher.overlays.contains { $0.ids.contains("owm:1000") })
        #expect(await h.engine.engine.currentState.pending == 0)
        h.engine.checkInvariants()
    }

    @Test("a newer region supersedes an older grid even when the older one answers first")
    func olderGridAnsweringFirstNeverLands() async throws {
        let h = try RegionHarness(concurrency: 2)
        let older = mapRegion(10, 20)
        let newer = mapRegion(-20, -40)
        let olderGates = h.scriptGrid(older, base: 1000, gated: true)
        let newerGates = h.scriptGrid(newer, base: 2000, gated: true)
        await h.submit(older)
        h.passDebounce()
        await h.waitForFetches(2)
        await h.submit(newer)
        h.passDebounce()
        await h.waitForFetches(4)

        for gate in olderGates { gate.open() }
        await h.waitForState { $0.pending == 9 }  // the older grid is done: only the newer one's 9 remain
        #expect(h.publisher.overlays.count == 1, "the older grid's result did not land")
        for gate in newerGates { gate.open() }
        await h.waitUntilSettled(newer)
        #expect(await h.engine.engine.currentOverlays.ids.first == "owm:2000")
        #expect(h.gridFetches(older) == 2)
        h.engine.checkInvariants()
    }

    @Test("running == (pending > 0) in every published state, through grids, failures and supersessions")
    func runningIffPending() async throws {
        let h = try RegionHarness(concurrency: 3)
        try h.engine.scriptFixtures()
        let a = mapRegion(10, 20)
        let b = mapRegion(-20, -40)
        let c = mapRegion(40, 60, span: (1, 1))
        let gatesA = h.scriptGrid(a, gated: true)
        h.scriptGrid(b, base: 2000) { index, _ in index.isMultiple(of: 2) ? .failure(.unavailable("timed out")) : nil }
        h.scriptGrid(c, base: 3000) { _, _ in .failure(.unavailable("HTTP 502")) }

        await h.submit(a)
        h.passDebounce()
        await h.waitForFetches(3)
        _ = try await h.engine.engine.search(city: "Zocca")
        for gate in gatesA { gate.open() }
        await h.waitForState { $0.input == .text(city: "Zocca") && $0.pending == 0 }
        await h.submit(b)
        h.passDebounce()
        await h.waitUntilSettled(b)
        await h.submit(c)
        h.passDebounce()
        await h.waitUntilSettled(c)

        let states = h.publisher.states
        #expect(states.count > 10)
        for state in states {
            #expect(state.running == (state.pending > 0), "\(state.json.serialized)")
        }
        h.engine.checkInvariants()
    }
}
