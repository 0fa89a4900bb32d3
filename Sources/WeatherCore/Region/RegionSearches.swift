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

        /// The settings of the `[region]` table.
        public init(_ config: RegionConfig) {
            self.init(debounce: config.debounce, around: config.around, concurrency: config.concurrency)
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
    private let clock: DaemonClock
    private let logger: Logger
    private var settings: Settings
    private var lastSearched: MapRegion?
    /// The events not yet searched: the last one, until its debounce has passed.
    private var debounce: RegionDebounce<Event>
    /// Wakes `run()` when an event arrives.
    private let arrived = Wakeup()

    public init(settings: Settings, engine: SearchEngine, clock: DaemonClock, logger: Logger) {
        self.settings = settings
        self.engine = engine
        self.clock = clock
        self.logger = logger
        debounce = RegionDebounce(interval: settings.debounce)
    }

    /// New settings (configuration reload); the debounce applies from the next start.
    public func update(_ settings: Settings) {
        self.settings = settings
    }

    /// Takes a region event; its search starts after the debounce, if nothing newer came.
    public func submit(_ region: MapRegion) async {
        let otherInputs = await engine.textAndLocationInputCount
        debounce.take(Event(region: region, otherInputs: otherInputs), at: clock.now)
        arrived.wake()
    }

    /// Debounces events and runs their grids until cancelled. A new grid does not wait for an
    /// older one: the older one is superseded and stops sending lookups.
    public func run() async {
        debounce.interval = settings.debounce
        await withDiscardingTaskGroup { grids in
            await arrived.actWhenDue(on: clock, due: { debounce.due }) {
                guard let event = debounce.takeDue(at: clock.now) else { return }  // woken by a newer event
                guard await engine.textAndLocationInputCount == event.otherInputs else {
                    logger.debug("region \(event.region.center) superseded by a newer input during its debounce")
                    return
                }
                if let lastSearched, RegionGrid.isNegligibleMove(from: lastSearched, to: event.region) {
                    logger.debug("region \(event.region.center) moved less than a tenth of its span; no search")
                    return
                }
                lastSearched = event.region
                let points = RegionGrid.points(of: event.region, around: settings.around)
                let search = await engine.beginRegion(event.region, points: points)
                let concurrency = settings.concurrency
                let region = event.region
                grids.addTask {
                    let landed = await self.engine.searchRegion(search, concurrency: concurrency)
                    if !landed { await self.forget(region) }
                }
            }
        }
    }

    /// A region whose grid was superseded never reached the overlays: it no longer counts as the
    /// last searched one, so the map sending it again searches it again.
    private func forget(_ region: MapRegion) {
        if lastSearched == region { lastSearched = nil }
    }
}

extension RegionSearches: Reconfigurable {
    /// New `around` and `concurrency` apply to the next grid; `debounce` needs a restart.
    public func apply(_ change: ConfigChange) {
        if change.changed(table: "region") { update(Settings(change.new.region)) }
    }
}
