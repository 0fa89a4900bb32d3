import Testing

@testable import WeatherCore

/// RegionSearches over an EngineHarness (no watched cities, scripted upstream, recording
/// publisher), its `run()` loop running in a task that is cancelled with the harness.
///
/// The debounce runs on its own manual clock, `debounce`, so that every read of its `now` is the
/// debounce's own: the debounce reads `now` when it takes an event (to set its deadline), which is
/// how `submit` knows the event was taken before the test moves time.
final class RegionHarness: Sendable {
    let engine: EngineHarness
    let debounce = ManualClock()
    let settings: RegionSearches.Settings
    let regions: RegionSearches
    private let loop: Task<Void, Never>

    var upstream: ScriptedUpstream { engine.upstream }
    var publisher: RecordingPublisher { engine.publisher }

    init(debounce interval: Duration = .milliseconds(250), around: Int = 1, concurrency: Int = 4) throws {
        engine = try EngineHarness(cities: [])
        settings = .init(debounce: interval, around: around, concurrency: concurrency)
        regions = RegionSearches(
            settings: settings, engine: engine.engine, clock: DaemonClock(debounce),
            logger: silentLogger)
        loop = Task { [regions] in await regions.run() }
    }

    deinit { loop.cancel() }

    /// Sends a region event and returns once the debounce has taken it (read the time for its
    /// deadline) and is sleeping towards a deadline.
    func submit(_ region: MapRegion) async {
        let reads = debounce.readCount
        await regions.submit(region)
        await untilCancelled { [debounce] in
            await debounce.waitForReads(reads + 1)
            await debounce.waitForSleepers(1)
        }
    }

    /// Moves the debounce clock on by less than the debounce still needs, and returns once the
    /// debounce sleeps again (a sleep that came due has read the time and gone back to sleep).
    /// Records an issue when instead a lookup starts (the debounce ended early).
    func advanceWhileDebouncing(by duration: Duration, sourceLocation: SourceLocation = #_sourceLocation) async {
        let fetched = upstream.fetchCount
        debounce.advance(by: duration)
        let stillDebouncing = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [debounce] in
                await untilCancelled { await debounce.waitForSleepers(1) }
                return true
            }
            group.addTask { [upstream] in
                await untilCancelled { await upstream.waitForFetches(fetched + 1) }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(stillDebouncing, "a search started before the debounce ended", sourceLocation: sourceLocation)
    }

    /// Moves the debounce clock on by the whole debounce interval.
    func passDebounce() {
        debounce.advance(by: settings.debounce)
    }

    /// The grid of `region` under the harness' settings.
    func points(_ region: MapRegion) -> [RegionGrid.Point] {
        RegionGrid.points(of: region, around: settings.around)
    }

    /// Scripts every point of `region`'s grid: `result(index, point)` (by default a station named
    /// `P<index>` with id `base + index` at the point), each held behind its own gate when
    /// `gated`. Returns the gates, in grid order.
    @discardableResult
    func scriptGrid(
        _ region: MapRegion, base: Int = 1000, gated: Bool = false,
        _ result: ((Int, RegionGrid.Point) -> Result<WeatherObservation, UpstreamError>?)? = nil
    ) -> [Gate] {
        points(region).enumerated().map { index, point in
            let c = point.coordinate
            let scripted =
                result?(index, point)
                ?? .success(sampleObservation("P\(index)", id: base + index, lat: c.lat, lon: c.lon))
            return upstream.script(.coordinate(c), scripted, gated: gated)
        }
    }

    func waitForFetches(_ count: Int) async {
        await untilCancelled { [upstream] in await upstream.waitForFetches(count) }
    }

    func waitForOverlays(_ count: Int) async {
        await untilCancelled { [publisher] in await publisher.waitForOverlays(count) }
    }

    func waitForState(where matches: @escaping @Sendable (DaemonState) -> Bool) async {
        await untilCancelled { [publisher] in await publisher.waitForState(where: matches) }
    }

    /// Returns once the search of `region` has settled (nothing pending, no longer loading).
    func waitUntilSettled(_ region: MapRegion) async {
        await waitForState { $0.input == .region(region) && $0.pending == 0 && $0.phase != .loading }
    }

    /// Fetches of the points of `region`'s grid so far.
    func gridFetches(_ region: MapRegion) -> Int {
        points(region).reduce(0) { $0 + upstream.fetchCount(of: .coordinate($1.coordinate)) }
    }
}

func mapRegion(_ lat: Double, _ lon: Double, span: (lat: Double, lon: Double)? = nil) -> MapRegion {
    MapRegion(center: Coordinate(lat: lat, lon: lon), span: span.map { Coordinate(lat: $0.lat, lon: $0.lon) })
}
