import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("DaemonClock over a ManualClock", .timeLimit(.minutes(1)))
struct DaemonClockTests {
    @Test("now moves only when the manual clock advances")
    func now() {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        #expect(clock.now.offset == .zero)
        manual.advance(by: .seconds(90))
        #expect(clock.now.offset == .seconds(90))
        #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(5))) == .seconds(5))
    }

    @Test("a sleep resumes once the clock is advanced past its deadline, not before")
    func sleepResumesOnAdvance() async throws {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await manual.waitForSleepers(1)
        manual.advance(by: .seconds(9))
        #expect(manual.sleeperCount == 1, "9 s of 10: still asleep")
        manual.advance(by: .seconds(1))
        #expect(manual.sleeperCount == 0)
        try await sleeper.value
        #expect(clock.now.offset == .seconds(10))
    }

    @Test("one advance wakes every sleeper that is due and leaves the others")
    func severalSleepers() async throws {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        let short = Task { try await clock.sleep(for: .seconds(1)) }
        let medium = Task { try await clock.sleep(for: .seconds(2)) }
        let long = Task { try await clock.sleep(for: .seconds(60)) }
        await manual.waitForSleepers(3)
        manual.advance(by: .seconds(2))
        try await short.value
        try await medium.value
        #expect(manual.sleeperCount == 1)
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
    }

    @Test("a cancelled sleep throws CancellationError and stops waiting")
    func cancellation() async {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await manual.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(manual.sleeperCount == 0)
    }

    @Test("a sleep whose deadline has passed returns at once")
    func pastDeadline() async throws {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        manual.advance(by: .seconds(5))
        try await clock.sleep(until: DaemonClock.Instant(offset: .seconds(3)))
        try await clock.sleep(for: .zero)
        #expect(manual.sleeperCount == 0)
    }

    @Test("secondsRoundedUp rounds any fraction up")
    func secondsRoundedUp() {
        #expect(Duration.seconds(5).secondsRoundedUp == 5)
        #expect(Duration.milliseconds(4001).secondsRoundedUp == 5)
        #expect(Duration.zero.secondsRoundedUp == 0)
    }
}

@Suite("CityRefresher", .timeLimit(.minutes(1)))
struct CityRefresherTests {
    @Test("runs a round, sleeps refresh, runs again after the clock advances, and stops on cancellation")
    func rounds() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        try h.scriptFixtures()
        let refresher = CityRefresher(engine: h.engine, clock: DaemonClock(h.clock), refresh: .seconds(600))
        let task = Task { try await refresher.run() }

        await h.clock.waitForSleepers(1)
        #expect(h.upstream.fetchCount == 2, "first round at start")
        #expect(await h.engine.currentState.phase == .populated)

        h.clock.advance(by: .seconds(599))
        #expect(h.clock.sleeperCount == 1, "not yet due")
        #expect(h.upstream.fetchCount == 2)

        h.clock.advance(by: .seconds(1))
        await h.clock.waitForSleepers(1)
        #expect(h.upstream.fetchCount == 4, "second round after refresh")

        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        h.clock.advance(by: .seconds(3600))
        #expect(h.upstream.fetchCount == 4, "no round after cancellation")
        h.checkInvariants()
    }

    @Test("a reload's new refresh applies to the wait under way, measured from the last round's start")
    func newRefreshAppliesAtOnce() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        try h.scriptFixtures()
        let refresher = CityRefresher(engine: h.engine, clock: DaemonClock(h.clock), refresh: .seconds(600))
        let task = Task { try await refresher.run() }
        await h.clock.waitForSleepers(1)
        h.clock.advance(by: .seconds(30))
        #expect(h.upstream.fetchCount == 1)

        await refresher.apply(reload { $0.refresh = .seconds(60) })
        h.clock.advance(by: .seconds(30))
        await h.upstream.waitForFetches(2)  // 60 s after the first round, not 600 s
        h.clock.advance(by: .seconds(60))
        await h.upstream.waitForFetches(3)  // and every 60 s from then on
        task.cancel()
        _ = try? await task.value
        #expect(h.upstream.fetchCount == 3)
    }

    @Test("a reload that changes the cities runs one round at once; the regular rounds keep their interval")
    func newCitiesRoundAtOnce() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        try h.scriptFixtures()
        let refresher = CityRefresher(engine: h.engine, clock: DaemonClock(h.clock), refresh: .seconds(600))
        let task = Task { try await refresher.run() }
        await h.clock.waitForSleepers(1)
        #expect(h.upstream.fetchCount == 1)

        let change = reload { $0.cities = ["London,GB", "Zocca,IT"] }
        await h.engine.apply(change)
        await refresher.apply(change)
        await h.upstream.waitForFetches(3)  // one round of both cities, with no time passing
        await h.publisher.waitForOverlays(3)
        #expect(await h.engine.currentOverlays.ids == ["owm:2643743", "owm:3163858"])
        h.clock.advance(by: .seconds(600))
        await h.upstream.waitForFetches(5)  // the next regular round
        task.cancel()
        _ = try? await task.value
        #expect(h.upstream.fetchCount == 5)
        h.checkInvariants()
    }

    @Test("a reload that changes nothing of the refresher starts no round")
    func unrelatedReload() async throws {
        let h = try EngineHarness(cities: ["London,GB"])
        try h.scriptFixtures()
        let refresher = CityRefresher(engine: h.engine, clock: DaemonClock(h.clock), refresh: .seconds(600))
        let task = Task { try await refresher.run() }
        await h.clock.waitForSleepers(1)
        await refresher.apply(reload { $0.gpsd.port = 2948 })
        h.clock.advance(by: .seconds(599))
        #expect(h.upstream.fetchCount == 1)
        h.clock.advance(by: .seconds(1))
        await h.upstream.waitForFetches(2)
        task.cancel()
        _ = try? await task.value
    }
}

/// A reload from the default configuration to one changed by `change`.
private func reload(_ change: (inout DaemonConfig) -> Void) -> ConfigChange {
    var new = DaemonConfig()
    change(&new)
    return ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("test-key")))
}
