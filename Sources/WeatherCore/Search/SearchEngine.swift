import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one search stream: every input (watched-city rounds, searches, locations and map regions)
/// goes through here, in arrival order. It owns the state and the overlays.
///
/// A thin shell around ``SearchStream``, which holds the rules: the engine feeds it each event with
/// the time, runs the lookups it is asked for, and runs the effects it returns in order. A turn
/// changes the stream under the engine's lock, synchronously in the caller's thread (a turn never
/// waits); the changes it made are published after it, outside the lock (``ChangeDelivery``), so no
/// watcher's connection is written from inside a turn. A search whose answer is cached runs whole
/// in its caller's thread (``searchCached(city:deliver:)``): a connection's event loop answers it at once.
public actor SearchEngine {
    private let changes: ChangeDelivery
    let watched: WatchedCities, lookups: LookupService, logger: Logger
    /// What `state.services` lists, in order.
    let services: [any ServiceStatusReporting]
    private let wallClock: @Sendable () -> Date, clock: DaemonClock
    /// The stream, and the region search in progress by generation (woken when it is superseded:
    /// its request is then cancelled). Taken for one turn at a time, never across a wait.
    let core: Mutex<Core>
    struct Core {
        var stream: SearchStream
        var regionSuperseded: [Int: Wakeup] = [:]
    }
    /// Woken when the due time of a held state notification may have changed.
    private let heldNotices = Wakeup()
    /// The follow searches asked for, the newest waiting only (``LocationService/runFollow()`` runs them).
    let followSearches = AsyncStream.makeStream(of: LocationFix.self, bufferingPolicy: .bufferingNewest(1))

    /// The most watched-city lookups of one round in flight at once.
    static let cityRoundConcurrency = 4

    public init(
        cities watched: WatchedCities, gps: GPSStatus, lookups: LookupService, publisher: any ChangePublisher,
        budget: BudgetStatus = BudgetStatus(requestsPerMinute: 60), providers: [ProviderStatus] = [],
        services: [any ServiceStatusReporting]? = nil, wallClock: @escaping @Sendable () -> Date = Date.init,
        clock: DaemonClock = .continuous, logger: Logger
    ) {
        (self.clock, self.lookups, self.wallClock, self.logger, self.watched) = (clock, lookups, wallClock, logger, watched)
        self.services = services ?? [lookups]
        self.changes = ChangeDelivery(publisher)
        let stream = SearchStream(cities: watched.effective, gps: gps, budget: budget, providers: providers, now: wallClock())
        core = Mutex(Core(stream: stream))
        changes.post(stream.startEffects.compactMap(\.change))
        changes.deliver()
    }

    // MARK: Reading

    public var currentState: DaemonState { stream.state }

    /// The stream as it is now, read under the lock in the caller's thread.
    nonisolated var stream: SearchStream { core.withLock { $0.stream } }

    /// The state with the budget, providers and services as they are now (counts change without a notification).
    public var freshState: DaemonState {
        get async {
            var now = stream.state
            (now.budget, now.providers) = await (lookups.budget, lookups.providerStatuses)
            now.services = await services.statuses
            return now
        }
    }

    public var currentOverlays: Overlays { overlaysNow }
    public var watchedCities: [String] { citiesNow }
    /// Each watched city with its latest good feature (stale while its refresh fails), in list order.
    public var watchedCityFeatures: [(city: String, feature: WeatherFeature)] { stream.watchedCityFeatures }
    /// The generation of the latest interactive input; it grows with each new one.
    public var currentGeneration: Int { stream.generation }
    /// How many text and location inputs have begun (a region event older than the latest is dropped).
    public var textAndLocationInputCount: Int { stream.textAndLocationInputs }

    /// Takes in the budget and the providers as they are now: a notification when a block started
    /// or ended, a provider failed or recovered, or a limit changed; none for request counts alone.
    public nonisolated func refreshBudget() async {
        let (budget, providers, statuses) = await (lookups.budget, lookups.providerStatuses, services.statuses)
        turn { $0.stream.providersChanged(budget: budget, providers: providers, services: statuses, at: $1) }
    }

    /// The 5 day / 3 hour forecast for `query`, through the stream's lookups. Not an input.
    public nonisolated func forecast(_ query: LookupQuery) async throws -> WeatherForecast { try await lookups.forecast(query) }

    /// The places `name` names, best first, at most `limit` (empty when unknown). Not an input.
    public nonisolated func places(named name: String, limit: Int) async throws -> [Place] {
        try await lookups.places(named: name, limit: limit)
    }

    /// A search that has entered the stream (the latest input, loading); ``complete(_:)`` runs its
    /// lookup and settles it, once. A client's requests enter in the order sent, and run side by side.
    public struct EnteredSearch: Sendable {
        let ticket: SearchStream.Ticket, query: LookupQuery, source: FeatureSource, fix: FixSummary?
    }

    /// Enters `city` into the stream as an interactive text input: it supersedes every older input at once.
    public nonisolated func enter(search city: String) async -> EnteredSearch {
        EnteredSearch(ticket: begin(.text(city: city), lookups: 1), query: .city(city), source: .text, fix: nil)
    }

    /// Enters `place` as given (a place a client picked from `places`), without geocoding.
    public nonisolated func enter(search place: Place) async -> EnteredSearch {
        EnteredSearch(ticket: begin(.text(city: place.label), lookups: 1), query: .place(place), source: .text, fix: nil)
    }

    /// Looks up `city` as an interactive text input and returns its feature to the requester.
    public nonisolated func search(city: String) async throws -> WeatherFeature { try await complete(enter(search: city)) }

    /// Looks up `place` as given as an interactive text input and returns its feature to the requester.
    public nonisolated func search(place: Place) async throws -> WeatherFeature { try await complete(enter(search: place)) }

    /// Looks up the weather at a fused fix as an interactive location input.
    public nonisolated func locate(_ fix: LocationFix) async throws -> WeatherFeature {
        let ticket = begin(.location(fix.coordinate), lookups: 1)
        return try await complete(
            EnteredSearch(ticket: ticket, query: .coordinate(fix.coordinate), source: .location, fix: FixSummary(fix)))
    }

    /// Runs the lookup of an entered search and settles it: the requester always gets its answer
    /// (even when superseded); the overlays, focused on it, only if it is still the latest.
    /// - Throws: `WeatherError` from the lookup, or `CancellationError` when the requester went away.
    public nonisolated func complete(_ search: EnteredSearch) async throws -> WeatherFeature {
        let ticket = search.ticket
        switch await lookUp(search.query) {
        case .success(let observation)?:
            let feature = WeatherFeature(observation: observation, source: search.source, fix: search.fix)
            settle(ticket, features: [feature], focus: feature.coordinate, failure: nil)
            return feature
        case .failure(let error)?:
            settle(ticket, features: [], focus: nil, failure: error)
            throw error
        case nil:
            turn { $0.stream.abandon(ticket, at: $1) }
            throw CancellationError()
        }
    }

    /// A region search that has entered the stream (its lookups counted in `pending`); `superseded`
    /// is woken when a newer input supersedes it.
    public struct RegionSearch: Sendable {
        let ticket: SearchStream.Ticket, points: [RegionGrid.Point], superseded: Wakeup
    }

    /// Enters a map region's grid into the stream as an interactive input; run it with ``searchRegion(_:concurrency:)``.
    public nonisolated func beginRegion(_ region: MapRegion, points: [RegionGrid.Point]) async -> RegionSearch {
        let superseded = Wakeup()
        let ticket = step { core, now in
            let (ticket, effects) = core.stream.begin(.region(region), lookups: points.count, at: now)
            core.regionSuperseded[ticket.generation] = superseded
            return (ticket, effects)
        }
        return RegionSearch(ticket: ticket, points: points, superseded: superseded)
    }

    /// Looks up the grid of a region search (``InputLookups/grid(_:concurrency:with:until:wanted:settled:)``);
    /// the overlays change once the whole grid has settled, without focus. Returns whether it landed.
    public nonisolated func searchRegion(_ search: RegionSearch, concurrency: Int) async -> Bool {
        let answers = await InputLookups.grid(
            search.points.map(\.coordinate), concurrency: concurrency, with: lookups, until: search.superseded,
            wanted: stream.isCurrent(search.ticket), settled: settled(search.ticket.run, supersededBy: search.ticket))
        let (features, failure) = SearchStream.gridOutcome(search.points, answers)
        return settle(search.ticket, features: features, focus: nil, failure: failure)
    }

    private nonisolated func begin(_ input: SearchInput, lookups count: Int) -> SearchStream.Ticket {
        step { $0.stream.begin(input, lookups: count, at: $1) }
    }

    /// The outcome of an interactive input; returns whether it landed in the overlays.
    @discardableResult
    nonisolated func settle(_ ticket: SearchStream.Ticket, features: [WeatherFeature], focus: Coordinate?, failure: WeatherError?)
        -> Bool
    {
        let landed = step { core, now in
            core.regionSuperseded[ticket.generation] = nil
            return core.stream.settle(ticket, features: features, focus: focus, failure: failure, at: now)
        }
        if !landed { logger.debug("dropping the result of superseded input \(ticket.input)") }
        return landed
    }

    /// Lookups of `run` settled: each one counted off `pending` (its last stays counted until the
    /// input's outcome); a 429 shows in `state.budget` at once. Returns whether the lookups not sent
    /// yet are still wanted: not once `ticket` is superseded.
    nonisolated func settled(_ run: PendingLookups.Run, supersededBy ticket: SearchStream.Ticket?) -> InputLookups.Settled {
        { count, answers in
            if answers.contains(where: InputLookups.isRateLimited) { await self.refreshBudget() }
            return self.step { core, now in
                (ticket.map(core.stream.isCurrent) != false, core.stream.answered(run, count: count, at: now))
            }
        }
    }

    /// One lookup, in the caller's task; a 429 shows in `state.budget` at once.
    nonisolated func lookUp(_ query: LookupQuery) async -> InputLookups.Answer {
        let answer = await InputLookups.lookUp(query, with: lookups)
        if InputLookups.isRateLimited(answer) { await refreshBudget() }
        return answer
    }

    /// Records what is known of gpsd, the fused location and its sources, and what follow mode is told with it.
    public nonisolated func updateLocation(
        gps: GPSStatus, location: LocationFix?, sources: [LocationSourceStatus], follow: FollowReport? = nil
    ) async {
        turn { $0.stream.locationChanged(gps: gps, location: location, sources: sources, follow: follow, at: $1) }
    }

    /// The OwnTracks devices' features (`source: "device"`): a layer of the overlays, like the watched cities'.
    public nonisolated func setDeviceFeatures(_ features: [WeatherFeature]) async {
        turn { core, _ in core.stream.devicesChanged(features) }
    }

    /// Takes in what the alert service knows: the features at those places carry their alerts and
    /// the alert areas join the overlays (one overlays change, only when something differs; like a
    /// watched city's, it never moves the map).
    public nonisolated func updateAlerts(_ view: AlertView) async {
        turn { core, _ in core.stream.alertsChanged(view) }
    }

    /// The alerts of the places on the map and their areas, as last taken in.
    var alertView: AlertView { stream.alertView }

    /// Sends each held state notification when its time has come, until cancelled.
    public nonisolated func runHeldNotices() async {
        await heldNotices.actWhenDue(on: clock, due: { self.stream.noticeDue }) { self.turn { $0.stream.tick(at: $1) } }
    }

    typealias Event<T> = (inout Core, SearchStream.Now) -> (T, [SearchStream.Effect])

    /// One turn: `body` feeds an event to the stream under the lock, in the caller's thread; its
    /// changes are queued in order there, and published after it, outside the lock, as are its
    /// other effects (a wake-up). With `deliver` false its changes wait for the next delivery
    /// (``deliverChanges()``, or another turn's).
    nonisolated func step<T: Sendable>(deliver: Bool = true, _ body: Event<T>) -> T {
        let (value, superseded, wakeNotices, follow) = core.withLock { core in
            let (value, effects) = body(&core, SearchStream.Now(wall: wallClock(), instant: clock.now))
            changes.post(effects.compactMap(\.change))
            var superseded: [Wakeup] = []
            var wakeNotices = false
            var follow: LocationFix?
            for effect in effects {
                switch effect {
                case .publishState, .publishOverlays: break
                case .armNoticeTimer: wakeNotices = true  // its due time may have changed
                case .cancelRegion(let generation): core.regionSuperseded.removeValue(forKey: generation).map { superseded.append($0) }
                case .followSearch(let fix): follow = fix
                }
            }
            return (value, superseded, wakeNotices, follow)
        }
        if let follow { followSearches.continuation.yield(follow) }
        if wakeNotices { heldNotices.wake() }
        for wakeup in superseded { wakeup.wake() }
        if deliver { changes.deliver() }
        return value
    }

    /// Publishes the changes posted by turns that did not publish them (``searchCached(city:deliver:)``).
    public nonisolated func deliverChanges() {
        changes.deliver()
    }

    nonisolated func turn(_ body: (inout Core, SearchStream.Now) -> [SearchStream.Effect]) {
        step { ((), body(&$0, $1)) }
    }
}
