import AsyncAlgorithms
import Logging

/// The map-region input of the search stream: region events are debounced, near-duplicates are
/// ignored, and each remaining region looks up the weather of its grid.
///
/// A grid is an interactive input like any other: a newer input (text, location, or another
/// region) supersedes it, its queued lookups are then never sent, and its result never lands.
public actor RegionSearches {
    /// The `[region]` settings.
    public struct Settings: Sendable, Equatable {
        public var debounce: Duration
        public var around: Int
        public var concurrency: Int

        public init(debounce: Duration, around: Int, concurrency: Int) {
            self.debounce = debounce
            self.around = around
            self.concurrency = concurrency
        }
    }

    /// A region event and how many text and location inputs had begun when it arrived: one that
    /// begins later is newer, and the region must not supersede it after its debounce. (Newer
    /// regions need no such check: the debounce keeps only the last of a burst.)
    private struct Event: Sendable {
        var region: MapRegion
        var otherInputs: Int
    }

    private let engine: SearchEngine
    private let lookups: LookupService
    private let clock: DaemonClock
    private let logger: Logger
    private var settings: Settings
    private var lastSearched: MapRegion?
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    public init(settings: Settings, engine: SearchEngine, lookups: LookupService, clock: DaemonClock, logger: Logger) {
        self.settings = settings
        self.engine = engine
        self.lookups = lookups
        self.clock = clock
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// New settings (configuration reload); the debounce applies from the next start.
    public func update(_ settings: Settings) {
        self.settings = settings
    }

    /// Takes a region event; its search starts after the debounce, if nothing newer came.
    public func submit(_ region: MapRegion) async {
        let otherInputs = await engine.textAndLocationInputCount
        eventSink.yield(Event(region: region, otherInputs: otherInputs))
    }

    /// Debounces events and runs their grids until cancelled. A new grid does not wait for an
    /// older one: the older one is superseded and stops sending lookups.
    public func run() async {
        let debounced = events.debounce(for: settings.debounce, clock: clock)
        await withDiscardingTaskGroup { grids in
            for await event in debounced {
                guard await engine.textAndLocationInputCount == event.otherInputs else {
                    logger.debug("region \(event.region.center) superseded by a newer input during its debounce")
                    continue
                }
                if let lastSearched, RegionGrid.isNegligibleMove(from: lastSearched, to: event.region) {
                    logger.debug("region \(event.region.center) moved less than a tenth of its span; no search")
                    continue
                }
                lastSearched = event.region
                let points = RegionGrid.points(of: event.region, around: settings.around)
                let ticket = await engine.begin(.region(event.region), lookups: points.count)
                let concurrency = settings.concurrency
                let region = event.region
                grids.addTask {
                    await self.runGrid(points, ticket: ticket, concurrency: concurrency)
                    if await !self.engine.isCurrent(ticket) { await self.forget(region) }
                }
            }
        }
    }

    /// A region whose grid was superseded never reached the overlays: it no longer counts as the
    /// last searched one, so the map sending it again searches it again.
    private func forget(_ region: MapRegion) {
        if lastSearched == region { lastSearched = nil }
    }

    /// Looks up every point, at most `concurrency` at once, and settles the grid once.
    private nonisolated func runGrid(_ points: [RegionGrid.Point], ticket: SearchEngine.Ticket, concurrency: Int) async {
        var features: [WeatherFeature?] = Array(repeating: nil, count: points.count)
        var failures: [WeatherError] = []
        var unsettled = points.count
        var heldBack = 0  // the last lookup settles together with the grid's result
        await withTaskGroup(of: (Int, Result<WeatherObservation, WeatherError>?).self) { group in
            var queue = Array(points.indices)[...]
            var stopped = false
            func startNext() async {
                guard !stopped, let index = queue.first else { return }
                guard await engine.isCurrent(ticket), !Task.isCancelled else {
                    // Superseded: the queued lookups are never sent.
                    stopped = true
                    unsettled -= queue.count
                    await engine.lookupsSettled(queue.count)
                    queue.removeAll()
                    return
                }
                queue.removeFirst()
                let query = LookupQuery.coordinate(points[index].coordinate)
                group.addTask { [lookups] in
                    do {
                        return (index, .success(try await lookups.lookup(query)))
                    } catch let error as WeatherError {
                        return (index, .failure(error))
                    } catch {
                        return (index, nil)
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { await startNext() }
            for await (index, result) in group {
                unsettled -= 1
                if unsettled == 0 { heldBack = 1 } else { await engine.lookupsSettled(1) }
                switch result {
                case .success(let observation)?:
                    features[index] = WeatherFeature(observation: observation, source: points[index].source)
                case .failure(let error)?:
                    failures.append(error)
                case nil:
                    break
                }
                await startNext()
            }
        }
        let landed = features.compactMap { $0 }
        let failure = landed.isEmpty ? failures.first(where: { $0.code != .notFound }) ?? failures.first : nil
        await engine.settle(ticket, features: landed, focus: nil, failure: failure, settledLookups: heldBack)
    }
}
