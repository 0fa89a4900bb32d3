import Foundation
import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore

/// How far the boot-time clock is ahead of the monotonic one, as a test sets it: a suspend of N
/// seconds adds N.
private final class SuspendedTime: Sendable {
    private let value = Mutex(Duration.zero)
    func suspend(for duration: Duration) { value.withLock { $0 += duration } }
    var now: Duration { value.withLock { $0 } }
}

/// A signal the test sends by hand (the daemon's is a wall-clock jump): each `next()` of the detector
/// takes one; the test can wait until the detector waits for the next one (it finished a look).
private actor Signals {
    private var pending: [Bool] = []
    private var waiter: CheckedContinuation<Bool, Never>?
    private var waitingWatchers: [CheckedContinuation<Void, Never>] = []
    private(set) var taken = 0

    func next() async -> Bool {
        taken += 1
        if !pending.isEmpty { return pending.removeFirst() }
        return await withCheckedContinuation { continuation in
            waiter = continuation
            for watcher in waitingWatchers { watcher.resume() }
            waitingWatchers = []
        }
    }

    func send(_ value: Bool) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: value)
        } else {
            pending.append(value)
        }
    }

    /// Returns once the detector waits for a signal, having taken `count` in all.
    func waitUntilWaiting(taken count: Int) async {
        while !(waiter != nil && taken == count) {
            await withCheckedContinuation { waitingWatchers.append($0) }
        }
    }
}

@Suite("Resume after suspend", .timeLimit(.minutes(1)))
struct ResumeTests {
    private func detector(_ h: EngineHarness, refresher: CityRefresher, location: LocationService, suspended: SuspendedTime)
        -> ResumeDetector
    {
        ResumeDetector(
            clock: DaemonClock(h.clock),
            clocks: { [clock = h.clock] in
                // The manual clock is the monotonic one; the boot-time clock also counts the suspends.
                let monotonic = clock.now.offset
                return (monotonic + suspended.now, monotonic)
            }, lookups: h.lookups, refresher: refresher,
            location: location, logger: silentLogger)
    }

    /// Hourly watched-city rounds and a location service without gpsd, on the harness's clock.
    private func roundsAndLocations(_ h: EngineHarness) -> (CityRefresher, LocationService) {
        let refresher = CityRefresher(engine: h.engine, clock: DaemonClock(h.clock), refresh: .seconds(3600))
        let location = LocationService(
            settings: .init(enabled: false, maxHorizontalError: 100, locateTimeout: .seconds(30), follow: false, followDistance: 1000),
            engine: h.engine, clock: DaemonClock(h.clock), logger: silentLogger)
        return (refresher, location)
    }

    @Test("after a suspend the watched cities are refreshed at once, not from a cache entry older than cache_ttl in wall time")
    func citiesRefreshAtOnce() async throws {
        let h = try EngineHarness(cities: ["London,GB"], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        let (refresher, location) = roundsAndLocations(h)
        let suspended = SuspendedTime()
        let rounds = Task { try await refresher.run() }
        await h.clock.waitForSleepers(1)
        #expect(h.upstream.fetchCount == 1, "the first round")
        let watching = Task { [detector = detector(h, refresher: refresher, location: location, suspended: suspended)] in
            await detector.run()
        }
        await h.clock.waitForSleepers(2)

        // A suspend of 10 s or less is no resume: the detector looks again, nothing is refreshed.
        suspended.suspend(for: .seconds(10))
        h.clock.advance(by: ResumeDetector.interval)
        await h.clock.waitForSleepers(2)
        #expect(h.upstream.fetchCount == 1)
        #expect(h.clock.sleepingUntil.last == .seconds(3600) - ResumeDetector.interval, "the round still waits for refresh")

        // Suspended for 20 min: the cached London (10 min TTL) is 20 min old in wall time although the
        // monotonic clock counted seconds. The round runs at once and asks OpenWeatherMap.
        suspended.suspend(for: .seconds(1200))
        h.clock.advance(by: ResumeDetector.interval)
        await h.upstream.waitForFetches(2)
        #expect(h.upstream.fetchCount == 2 && h.upstream.fetchCount(of: "London,GB") == 2)
        await h.clock.waitForSleepers(2)
        #expect(h.clock.sleepingUntil.last == .seconds(3600), "the regular rounds follow refresh from this one")
        watching.cancel()
        await watching.value
        rounds.cancel()
        _ = try? await rounds.value
        h.checkInvariants()
    }

    @Test("cached answers age by the time suspended: served while younger than cache_ttl in wall time, then not")
    func cacheAges() async throws {
        let h = try EngineHarness(cities: [], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        _ = try await h.lookups.lookup(.city("London"))
        await h.lookups.resumed(after: .seconds(300))
        _ = try await h.lookups.lookup(.city("London"))
        #expect(h.upstream.fetchCount == 1, "5 min old: still fresh")
        h.clock.advance(by: .seconds(299))
        _ = try await h.lookups.lookup(.city("London"))
        #expect(h.upstream.fetchCount == 1, "9 min 59 s old")
        await h.lookups.resumed(after: .seconds(1))
        _ = try await h.lookups.lookup(.city("London"))
        #expect(h.upstream.fetchCount == 2, "10 min old in wall time: asked again")
    }

    @Test(
        "the cache ages by the part of a suspend the daemon's clock did not count, never twice",
        arguments: [false, true])
    func cacheAgesOnce(daemonClockCountsSuspend: Bool) async throws {
        let h = try EngineHarness(cities: [], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        let suspended = SuspendedTime()
        let (refresher, location) = roundsAndLocations(h)
        // The manual clock is the daemon's clock: the monotonic one, or (like Linux's ContinuousClock)
        // the boot-time one.
        let detector = ResumeDetector(
            clock: DaemonClock(h.clock),
            clocks: { [clock = h.clock] in
                let now = clock.now.offset
                return daemonClockCountsSuspend ? (now, now - suspended.now) : (now + suspended.now, now)
            }, lookups: h.lookups, refresher: refresher, location: location, logger: silentLogger)
        _ = try await h.lookups.lookup(.city("London"))
        let watching = Task { await detector.run() }
        /// A suspend of `duration`, noticed at the detector's next look.
        func suspend(for duration: Duration) async {
            await h.clock.waitForSleepers(1)
            suspended.suspend(for: duration)
            h.clock.advance(by: (daemonClockCountsSuspend ? duration : .zero) + ResumeDetector.interval)
            await h.clock.waitForSleepers(1)  // it looked, and handled the resume
        }
        await suspend(for: .seconds(300))
        _ = try await h.lookups.lookup(.city("London"))
        #expect(h.upstream.fetchCount == 1, "305 s old in wall time: still fresh")
        await suspend(for: .seconds(300))
        _ = try await h.lookups.lookup(.city("London"))
        #expect(h.upstream.fetchCount == 2, "610 s old in wall time: asked again")
        watching.cancel()
        await watching.value
    }

    @Test("after a suspend, follow mode searches the next accepted fix even if it did not move")
    func followSearchesNextFix() async throws {
        let h = try LocationHarness(follow: true, followDistance: 1000)
        let place = Coordinate(lat: 44.3412, lon: 10.9876)
        h.scriptWeather(at: place, name: "Zocca", id: 3_163_858)
        let refresher = CityRefresher(engine: h.engine.engine, clock: DaemonClock(h.clock), refresh: .seconds(3600))
        let suspended = SuspendedTime()
        let follow = Task { await h.service.runFollow() }
        let watching = Task { [detector = detector(h.engine, refresher: refresher, location: h.service, suspended: suspended)] in
            await detector.run()
        }
        await h.clock.waitForSleepers(1)
        await h.service.receive(tpv(place.lat, place.lon))
        await h.waitForOverlays(2)  // seq 0 at start, then the follow search
        await h.service.receive(tpv(place.lat, place.lon))  // did not move: no search

        suspended.suspend(for: .seconds(3600))
        h.clock.advance(by: ResumeDetector.interval)
        await h.clock.waitForSleepers(1)  // the detector looks again: the resume is handled
        await h.service.receive(tpv(place.lat, place.lon))
        await h.waitForOverlays(3)
        #expect(h.upstream.fetches == [.coordinate(place), .coordinate(place)])
        follow.cancel()
        watching.cancel()
        await untilCancelled { await follow.value }
        await watching.value
    }

    @Test(
        "with a signal (the daemon's: the wall clock jumped) it sleeps on no clock, looks at each signal and refreshes after a suspend; false ends it"
    )
    func looksAtEachSignal() async throws {
        let h = try EngineHarness(cities: ["London,GB"], cacheTTL: .seconds(600))
        try h.scriptFixtures()
        let (refresher, location) = roundsAndLocations(h)
        let suspended = SuspendedTime()
        let signals = Signals()
        var signalled = detector(h, refresher: refresher, location: location, suspended: suspended)
        signalled.looks = .onSignal(next: { await signals.next() })
        let rounds = Task { try await refresher.run() }
        await h.clock.waitForSleepers(1)
        #expect(h.upstream.fetchCount == 1, "the first round")
        let watching = Task { [signalled] in await signalled.run() }
        await signals.waitUntilWaiting(taken: 1)
        #expect(h.clock.sleeperCount == 1, "the refresh round sleeps on the clock; the detector does not")

        // The wall clock was set (no suspend): a look, nothing refreshed.
        await signals.send(true)
        await signals.waitUntilWaiting(taken: 2)
        #expect(h.upstream.fetchCount == 1)

        // A resume after 20 min: the round runs at once, without waiting for any clock.
        suspended.suspend(for: .seconds(1200))
        await signals.send(true)
        await h.upstream.waitForFetches(2)
        await signals.waitUntilWaiting(taken: 3)

        await signals.send(false)
        await watching.value
        rounds.cancel()
        _ = try? await rounds.value
    }
}
