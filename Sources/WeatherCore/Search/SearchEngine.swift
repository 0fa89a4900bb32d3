import Foundation
import Logging

/// The one search stream: every input (watched-city rounds, searches, and later locations and
/// map regions) goes through here, in arrival order. It owns the state and the overlays.
///
/// Latest wins: each interactive input takes a new generation; a result lands in the overlays only
/// if no newer interactive input arrived meanwhile. A superseded search still answers its own
/// requester, but never replaces a newer result.
public actor SearchEngine {
    /// A ticket for one interactive input, from its start to its outcome.
    public struct Ticket: Sendable, Hashable {
        public let generation: Int
        public let input: SearchInput
        /// Its lookups, counted in `pending` until its outcome goes out.
        let run: PendingLookups.Run
    }

    /// What `state.phase` follows: the watched-city rounds until the first interactive input, then
    /// the latest interactive input.
    private enum PhaseSource: Equatable {
        case cities
        case interactive(generation: Int)
    }

    /// What happened to the input the phase follows.
    private enum PhaseEvent {
        /// It began: loading.
        case began
        /// It settled: populated with any feature, error for a failure other than not_found, else empty.
        case settled(hasFeatures: Bool, failure: WeatherError?)
        /// Its requester went away before it settled: the phase leaves loading.
        case abandoned(hasFeatures: Bool)
    }

    private let lookups: LookupService
    /// What `state.services` lists, in order.
    private let services: [any ServiceStatusReporting]
    private let publisher: any ChangePublisher
    private let wallClock: @Sendable () -> Date
    private let clock: DaemonClock
    private let logger: Logger

    private var state: DaemonState
    private var overlays: Overlays
    private let watched: WatchedCities
    /// The effective watched cities, in order.
    private var cities: [String] {
        didSet { cityKeys = cities.map(LookupKey.normalize(city:)) }
    }
    /// `cities` normalized (the keys of `cityFeatures`), kept rather than made at every change.
    private var cityKeys: [String]
    /// The last good feature of each watched city, by normalized name.
    private var cityFeatures: [String: WeatherFeature] = [:]
    /// The lookups of every input in progress: `state.pending`.
    private var pending = PendingLookups()
    /// The first watched-city round's lookups, counted from the start until it begins.
    private var firstRound: PendingLookups.Run?
    private var interactiveFeatures: [WeatherFeature] = []
    /// The OwnTracks devices' features (``setDeviceFeatures(_:)``).
    private var deviceFeatures: [WeatherFeature] = []
    private var latestGeneration = 0
    /// Text and location inputs begun so far: what a debounced region event must not override.
    private var textAndLocationInputs = 0
    private var phaseSource = PhaseSource.cities
    /// When a `gps.last_fix` change alone is sent; one held back is sent by ``runHeldNotices()``.
    private var locationNotices = LocationNoticeState()
    private let heldNotices = Wakeup()
    /// The alerts of the places on the map and their areas (``updateAlerts(_:)``); empty without alerts.
    var alertView = AlertView()
    /// Woken when the region search in progress is superseded (its request is then cancelled).
    private var regionSuperseded: Wakeup?

    /// The maximum number of watched-city lookups of one round in flight at once.
    static let cityRoundConcurrency = 4

    public init(
        cities watched: WatchedCities, gps: GPSStatus, lookups: LookupService, publisher: any ChangePublisher,
        budget: BudgetStatus = BudgetStatus(requestsPerMinute: 60), providers: [ProviderStatus] = [],
        services: [any ServiceStatusReporting]? = nil, wallClock: @escaping @Sendable () -> Date = Date.init,
        clock: DaemonClock = .continuous, logger: Logger
    ) {
        self.clock = clock
        self.lookups = lookups
        self.services = services ?? [lookups]
        self.publisher = publisher
        self.wallClock = wallClock
        self.logger = logger
        self.watched = watched
        let cities = watched.effective
        self.cities = cities
        self.cityKeys = cities.map(LookupKey.normalize(city:))
        self.firstRound = cities.isEmpty ? nil : pending.open(cities.count)
        let now = wallClock()
        // At start the first watched-city round is due: running and loading until it settles.
        self.state =
            cities.isEmpty
            ? DaemonState(pending: 0, phase: .empty, input: nil, gps: gps, budget: budget, providers: providers, updatedAt: now)
            : DaemonState(
                pending: cities.count, phase: .loading, input: .cities, gps: gps, budget: budget, providers: providers, updatedAt: now)
        self.overlays = Overlays(seq: 0, focus: nil, features: [])
        publisher.publish(state: state)
        publisher.publish(overlays: overlays)
    }

    // MARK: Reading

    public var currentState: DaemonState { state }

    /// The state with the budget and the providers as they are now (their request counts change
    /// without a notification).
    public var freshState: DaemonState {
        get async {
            var now = state
            (now.budget, now.providers) = await (lookups.budget, lookups.providerStatuses)
            now.services = await serviceStatuses
            return now
        }
    }

    /// Takes in the budget and the providers as they are now: a notification when a block started
    /// or ended, a provider failed or recovered, or a limit changed; none for request counts alone.
    public func refreshBudget() async {
        let (budget, providers) = await (lookups.budget, lookups.providerStatuses)
        let services = await serviceStatuses
        var next = state  // read after the wait: the state may have changed meanwhile
        next.budget = budget
        next.providers = providers
        next.services = services
        commit(next)
    }

    /// `state.services` now: every reporter's entries, in order.
    private var serviceStatuses: [ServiceStatus] {
        get async {
            var statuses: [ServiceStatus] = []
            for reporter in services { statuses += await reporter.serviceStatuses }
            return statuses
        }
    }
    public var currentOverlays: Overlays { overlays }
    public var watchedCities: [String] { cities }
    /// Each watched city with the feature of its latest good lookup (stale while its refresh
    /// fails), in list order; a city not looked up yet is left out.
    public var watchedCityFeatures: [(city: String, feature: WeatherFeature)] {
        zip(cities, cityKeys).compactMap { city, key in cityFeatures[key].map { (city, $0) } }
    }

    /// The generation of the latest interactive input; it grows with each new one.
    public var currentGeneration: Int { latestGeneration }

    /// How many text and location inputs have begun; a region event that arrived before the latest
    /// of them is older than it and must not start a search after its debounce.
    public var textAndLocationInputCount: Int { textAndLocationInputs }

    // MARK: Interactive inputs (text, location, region)

    /// The 5 day / 3 hour forecast for `query`, through the same lookups as the stream (cache, single
    /// flight, request budget). Not an input of the stream: neither the overlays nor the state change.
    /// - Throws: `WeatherError` from the lookup, or `CancellationError`.
    public nonisolated func forecast(_ query: LookupQuery) async throws -> WeatherForecast {
        try await lookups.forecast(query)
    }

    /// A search that has entered the stream (it is the latest input, loading, its lookup counted in
    /// `pending`); ``complete(_:)`` runs its lookup and settles it. Every entered search must be
    /// completed, once: a client's request enters the stream in the order it was sent, and its
    /// lookup then runs beside the client's later requests.
    public struct EnteredSearch: Sendable {
        let ticket: Ticket
        let query: LookupQuery
        let source: FeatureSource
        let fix: FixSummary?
    }

    /// Enters `city` into the stream as an interactive text input: it supersedes every older input at once.
    public func enter(search city: String) -> EnteredSearch {
        EnteredSearch(ticket: begin(.text(city: city), lookups: 1), query: .city(city), source: .text, fix: nil)
    }

    /// Enters `place` as given (a place a client picked from `places`), without geocoding, as
    /// `enter(search:)` does a name.
    public func enter(search place: Place) -> EnteredSearch {
        EnteredSearch(ticket: begin(.text(city: place.label), lookups: 1), query: .place(place), source: .text, fix: nil)
    }

    /// Looks up `city` as an interactive text input and returns its feature to the requester.
    /// - Throws: `WeatherError` from the lookup (also when superseded), or `CancellationError`.
    public func search(city: String) async throws -> WeatherFeature {
        try await complete(enter(search: city))
    }

    /// Looks up `place` as given as an interactive text input and returns its feature to the requester.
    public func search(place: Place) async throws -> WeatherFeature {
        try await complete(enter(search: place))
    }

    /// The places `name` names, best first, at most `limit` (empty when unknown), through the same
    /// lookups as the stream. Not an input of the stream: neither the overlays nor the state change.
    /// - Throws: `WeatherError` from the geocoder, or `CancellationError`.
    public nonisolated func places(named name: String, limit: Int) async throws -> [Place] {
        try await lookups.places(named: name, limit: limit)
    }

    /// Looks up the weather at a fused fix as an interactive location input.
    public func locate(_ fix: LocationFix) async throws -> WeatherFeature {
        let ticket = begin(.location(fix.coordinate), lookups: 1)
        return try await complete(
            EnteredSearch(ticket: ticket, query: .coordinate(fix.coordinate), source: .location, fix: FixSummary(fix)))
    }

    /// A region search that has entered the stream: its lookups are counted in `pending` until
    /// ``searchRegion(_:concurrency:)`` settles it.
    public struct RegionSearch: Sendable {
        let ticket: Ticket
        let points: [RegionGrid.Point]
        /// Woken when a newer input supersedes it.
        let superseded: Wakeup
    }

    /// Enters a map region's grid into the stream as an interactive input: it supersedes every older
    /// input at once. Run it with ``searchRegion(_:concurrency:)``.
    public func beginRegion(_ region: MapRegion, points: [RegionGrid.Point]) -> RegionSearch {
        let ticket = begin(.region(region), lookups: points.count)
        let superseded = Wakeup()
        regionSuperseded = superseded
        return RegionSearch(ticket: ticket, points: points, superseded: superseded)
    }

    /// Looks up the grid of a region search: first together, in one request, where the first
    /// provider can (``LookupService/lookUpTogether(_:)``), then each point not answered so, at most
    /// `concurrency` at once. Once a newer input supersedes it, its request in flight is cancelled and
    /// its queued lookups are never sent. The overlays change once, when the whole grid has settled:
    /// points that failed are left out, and `focus` is null.
    /// - Returns: whether its result landed (false when it was superseded).
    public func searchRegion(_ search: RegionSearch, concurrency: Int) async -> Bool {
        let coordinates = search.points.map(\.coordinate)
        var results = [Result<WeatherObservation, WeatherError>?](repeating: nil, count: coordinates.count)
        if isCurrent(search.ticket), !Task.isCancelled {
            let together = await withTaskGroup(of: [Result<WeatherObservation, WeatherError>?]?.self) { group in
                group.addTask { [lookups] in await lookups.lookUpTogether(coordinates) }
                group.addTask {
                    _ = await search.superseded.wait()
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let together { results = together }
        }
        if results.contains(where: { if case .failure(let error)? = $0 { error.code == .rateLimited } else { false } }) {
            await refreshBudget()
        }
        let rest = results.indices.filter { results[$0] == nil }
        settleLookups(search.ticket.run, results.count - rest.count)
        if !rest.isEmpty {
            let answers = await runLookups(
                rest.map { .coordinate(coordinates[$0]) }, concurrency: concurrency, run: search.ticket.run, supersededBy: search.ticket)
            for (index, result) in zip(rest, answers) { results[index] = result }
        }
        var features: [WeatherFeature] = []
        var failures: [WeatherError] = []
        for (point, result) in zip(search.points, results) {
            switch result {
            case .success(let observation)?: features.append(WeatherFeature(observation: observation, source: point.source))
            case .failure(let error)?: failures.append(error)
            case nil: break
            }
        }
        let failure = features.isEmpty ? failures.first(where: { $0.code != .notFound }) ?? failures.first : nil
        return settle(search.ticket, features: features, focus: nil, failure: failure)
    }

    /// Runs the lookup of an entered search and settles it: the requester always gets its answer;
    /// the overlays only if no newer input arrived meanwhile. The map focuses on the result.
    /// - Throws: `WeatherError` from the lookup (also when superseded), or `CancellationError`
    ///   when the requester went away.
    public func complete(_ search: EnteredSearch) async throws -> WeatherFeature {
        let ticket = search.ticket
        // Not stopped when superseded: the requester always gets its answer.
        switch await runLookups([search.query], concurrency: 1, run: ticket.run, supersededBy: nil)[0] {
        case .success(let observation)?:
            let feature = WeatherFeature(observation: observation, source: search.source, fix: search.fix)
            settle(ticket, features: [feature], focus: feature.coordinate, failure: nil)
            return feature
        case .failure(let error)?:
            settle(ticket, features: [], focus: nil, failure: error)
            throw error
        case nil:
            // The requester went away.
            pending.close(ticket.run)
            var next = state
            transition(&next, from: .interactive(generation: ticket.generation), .abandoned(hasFeatures: !interactiveFeatures.isEmpty))
            commit(next)
            throw CancellationError()
        }
    }

    /// Registers a new interactive input that will run `count` lookups; it supersedes every older
    /// one. The state goes to loading and running at once.
    private func begin(_ input: SearchInput, lookups count: Int) -> Ticket {
        latestGeneration += 1
        regionSuperseded?.wake()
        regionSuperseded = nil
        if case .region = input {} else { textAndLocationInputs += 1 }
        phaseSource = .interactive(generation: latestGeneration)
        let run = pending.open(count)
        var next = state
        next.input = input
        transition(&next, from: phaseSource, .began)
        commit(next)
        return Ticket(generation: latestGeneration, input: input, run: run)
    }

    /// Whether `ticket` is still the latest interactive input.
    private func isCurrent(_ ticket: Ticket) -> Bool { ticket.generation == latestGeneration }

    /// The outcome of an interactive input, with the last of its lookups. It lands in the overlays
    /// only if the input is still the latest. Returns whether it landed.
    @discardableResult
    private func settle(_ ticket: Ticket, features: [WeatherFeature], focus: Coordinate?, failure: WeatherError?) -> Bool {
        pending.close(ticket.run)
        var next = state
        guard isCurrent(ticket) else {
            logger.debug("dropping the result of superseded input \(ticket.input)")
            commit(next)
            return false
        }
        interactiveFeatures = Self.uniqueByID(features)
        transition(
            &next, from: .interactive(generation: ticket.generation),
            .settled(hasFeatures: !interactiveFeatures.isEmpty, failure: failure))
        publishOverlays(focus: interactiveFeatures.isEmpty ? nil : focus)
        commit(next)
        return true
    }

    // MARK: Watched cities

    /// Adds a watched city: it is looked up first (an unknown city is refused with not_found;
    /// when OpenWeatherMap cannot answer, the city is added anyway and looked up next round), then
    /// stored durably, then shown. Returns the effective list. Adding a watched city changes nothing.
    public func addCity(_ city: String) async throws -> [String] {
        guard !watched.contains(city) else { return cities }
        let run = pending.open(1)
        commit(state)
        let result = await runLookups([.city(city)], concurrency: 1, run: run, supersededBy: nil)[0]
        pending.close(run)
        commit(state)
        var feature: WeatherFeature?
        switch result {
        case .success(let observation)?:
            feature = WeatherFeature(observation: observation, source: .city)
        case .failure(let error)? where error.code != .notFound:
            logger.warning("adding \(city) without weather for now: \(error.message)")
        case .failure(let error)?:
            throw error
        case nil:
            throw CancellationError()
        }
        let list = try await watched.add(city)
        // Another change may have been stored meanwhile: the overlays show the list as stored now.
        setCities(watched.effective, lookedUp: feature.map { (city, $0) })
        return list
    }

    /// Removes a watched city, stored durably before it returns the effective list.
    /// - Throws: invalid_params when the city is not watched.
    public func removeCity(_ city: String) async throws -> [String] {
        let list = try await watched.remove(city)
        setCities(watched.effective)
        return list
    }

    /// New configured cities (reload); the stored changes stay on top of them.
    public func reconfigure(cities configured: [String]) {
        setCities(watched.reconfigure(configured))
    }

    /// Replaces the effective cities. Features of cities no longer watched leave the overlays;
    /// `lookedUp` adds a feature already fetched for a city.
    private func setCities(_ newCities: [String], lookedUp: (city: String, feature: WeatherFeature)? = nil) {
        cities = newCities
        let keys = Set(newCities.map(LookupKey.normalize(city:)))
        var changed = false
        for key in cityFeatures.keys where !keys.contains(key) {
            cityFeatures[key] = nil
            changed = true
        }
        if let lookedUp, keys.contains(LookupKey.normalize(city: lookedUp.city)) {
            cityFeatures[LookupKey.normalize(city: lookedUp.city)] = lookedUp.feature
            changed = true
        }
        if changed { publishOverlays(focus: nil, onlyIfChanged: true) }
        if pending.total == 0 { settleCityRound(failure: nil, run: nil) }
    }

    /// One round of lookups of every watched city. Failed cities keep their last good feature;
    /// the overlays change once, when the whole round has settled.
    public func refreshCities() async {
        let round = cities
        let run: PendingLookups.Run
        if let first = firstRound {
            pending.resize(first, to: round.count)
            run = first
            firstRound = nil
        } else {
            run = pending.open(round.count)
        }
        var next = state
        if !round.isEmpty {
            next.input = phaseSource == .cities ? .cities : next.input
            transition(&next, from: .cities, .began)
        }
        commit(next)

        let results = await runLookups(round.map { .city($0) }, concurrency: Self.cityRoundConcurrency, run: run, supersededBy: nil)
        var failures: [WeatherError] = []
        for (city, result) in zip(round, results) {
            switch result {
            case .success(let observation)?:
                if cities.contains(city) {
                    cityFeatures[LookupKey.normalize(city: city)] = WeatherFeature(observation: observation, source: .city)
                }
            case .failure(let error)?:
                logger.warning("watched city \(city): \(error.message)")
                failures.append(error)
                // Its last good feature stays, marked stale.
                cityFeatures[LookupKey.normalize(city: city)]?.stale = true
            case nil:
                break  // cancelled: shutting down
            }
        }
        if Task.isCancelled {
            // Shutting down mid-round: the round is abandoned, and the phase leaves loading with it.
            pending.close(run)
            var next = state
            transition(
                &next, from: .cities, .abandoned(hasFeatures: cities.contains { cityFeatures[LookupKey.normalize(city: $0)] != nil }))
            commit(next)
            return
        }
        publishOverlays(focus: nil, onlyIfChanged: true)
        settleCityRound(failure: failures.first { $0.code != .notFound }, run: run)
    }

    /// The outcome of the watched cities, with the last of their lookups (`run`, if a round ran):
    /// the phase while it follows them.
    private func settleCityRound(failure: WeatherError?, run: PendingLookups.Run?) {
        if let run { pending.close(run) }
        var next = state
        let hasFeatures = cities.contains { cityFeatures[LookupKey.normalize(city: $0)] != nil }
        if phaseSource == .cities { next.input = cities.isEmpty ? nil : .cities }
        transition(&next, from: .cities, .settled(hasFeatures: hasFeatures, failure: failure))
        commit(next)
    }

    // MARK: Lookups and the phase

    /// Runs the lookups of one input (counted in `pending` as `run`), at most `concurrency` at
    /// once: their answers in the order of `queries` (nil: cancelled).
    ///
    /// Each answer settles one lookup of `run` as it arrives (its last stays counted until the caller
    /// closes the run with the input's outcome). Once `ticket` is superseded (or the task is
    /// cancelled), queued lookups are never sent and are settled at once.
    private func runLookups(
        _ queries: [LookupQuery], concurrency: Int, run: PendingLookups.Run, supersededBy ticket: Ticket?
    ) async -> [Result<WeatherObservation, WeatherError>?] {
        var results = [Result<WeatherObservation, WeatherError>?](repeating: nil, count: queries.count)
        /// Whether lookups not sent yet should still be.
        func wanted() -> Bool { !Task.isCancelled && ticket.map(isCurrent) != false }
        if queries.count == 1 {
            // One lookup (a search, a locate): in this task. A task group and a child task for it
            // were 2% of a cached search (measured).
            if wanted() {
                results[0] = await Self.lookUp(queries[0], with: lookups)
                await answered(results[0], run: run)
            }
            return results
        }
        await withTaskGroup(of: (Int, Result<WeatherObservation, WeatherError>?).self) { group in
            var queue = Array(queries.indices)[...]
            var inFlight = 0
            while true {
                while inFlight < max(1, concurrency), let index = queue.popFirst() {
                    guard wanted() else {
                        // Superseded: the queued lookups are never sent.
                        settleLookups(run, queue.count + 1)
                        queue.removeAll()
                        break
                    }
                    inFlight += 1
                    let query = queries[index]
                    group.addTask { [lookups] in (index, await Self.lookUp(query, with: lookups)) }
                }
                guard let (index, result) = await group.next() else { break }
                inFlight -= 1
                results[index] = result
                await answered(result, run: run)
            }
        }
        return results
    }

    /// One lookup's result; nil when the task was cancelled (its requester went away). Runs where
    /// it is called from (no hop off the engine for a single lookup).
    private static func lookUp(
        _ query: LookupQuery, with lookups: LookupService, isolation: isolated (any Actor)? = #isolation
    ) async -> Result<WeatherObservation, WeatherError>? {
        do {
            return .success(try await lookups.lookup(query))
        } catch let error as WeatherError {
            return .failure(error)
        } catch {
            return nil
        }
    }

    /// One lookup of `run` was answered (nil: cancelled).
    private func answered(_ result: Result<WeatherObservation, WeatherError>?, run: PendingLookups.Run) async {
        if case .failure(let error)? = result, error.code == .rateLimited { await refreshBudget() }
        settleLookups(run, 1)
    }

    /// `count` lookups of `run` were answered, or dropped before they were sent.
    private func settleLookups(_ run: PendingLookups.Run, _ count: Int) {
        guard count > 0 else { return }
        pending.settle(run, count)
        commit(state)
    }

    /// The one transition of the phase: `event` of an input of `source` changes the phase only while
    /// the phase follows that source.
    private func transition(_ next: inout DaemonState, from source: PhaseSource, _ event: PhaseEvent) {
        guard source == phaseSource else { return }
        switch event {
        case .began:
            next.phase = .loading
            next.error = nil
        case .settled(let hasFeatures, let failure):
            if hasFeatures {
                next.phase = .populated
                next.error = nil
            } else if let failure, failure.code != .notFound {
                next.phase = .error
                next.error = failure
            } else {
                next.phase = .empty
                next.error = nil
            }
        case .abandoned(let hasFeatures):
            if next.phase == .loading { next.phase = hasFeatures ? .populated : .empty }
        }
    }

    // MARK: Locations

    /// Records what is known of gpsd, the fused location and its sources; a change is published.
    public func updateLocation(gps: GPSStatus, location: LocationFix?, sources: [LocationSourceStatus]) {
        var next = state
        next.gps = gps
        next.location = location
        next.locationSources = sources
        commit(next)
    }

    // MARK: Devices

    /// The OwnTracks devices' features (`source: "device"`), in the overlays beside the watched
    /// cities'; like them they never set `focus`, are not counted in `pending` and leave `phase` alone.
    public func setDeviceFeatures(_ features: [WeatherFeature]) {
        guard features != deviceFeatures else { return }
        deviceFeatures = features
        publishOverlays(focus: nil, onlyIfChanged: true)
    }

    // MARK: Publishing

    /// Takes in a new state and publishes it if it is news: not for `budget.used` alone, and for
    /// `gps.last_fix` alone as ``LocationNoticeState`` says (a later one waits, the latest wins).
    private func commit(_ next: DaemonState) {
        var next = next
        next.pending = pending.total
        guard !next.sameFields(as: state) else { return }
        // While a fix is held, the state differs from the last one sent by that fix only.
        let fixOnly = next.changesOnlyLastFix(from: state)
        state = next
        state.updatedAt = wallClock()
        switch locationNotices.changed(locationOnly: fixOnly, location: state.gps.lastFix?.coordinate, now: clock.now) {
        case .send: publisher.publish(state: state)
        case .hold: heldNotices.wake()  // its due time may have changed
        }
    }

    /// When the held `gps.last_fix` notification is due, if one is held.
    private var heldNoticeDue: DaemonClock.Instant? { locationNotices.heldUntil }

    /// Sends the held `gps.last_fix` notification if its time has come.
    private func sendHeldNotice() {
        if locationNotices.due(now: clock.now) == .send { publisher.publish(state: state) }
    }

    /// Sends each held `gps.last_fix` notification when its time has come, until cancelled.
    public nonisolated func runHeldNotices() async {
        while !Task.isCancelled {
            let due = await heldNoticeDue
            guard (try? await heldNotices.sleep(until: due, on: clock)) != nil else { return }
            await sendHeldNotice()
        }
    }

    /// Publishes the overlays as a new change (`seq` + 1). A result of an interactive input is
    /// always a change (the map re-centres on it); a city round only when its features differ.
    func publishOverlays(focus: Coordinate?, onlyIfChanged: Bool = false) {
        let watched = Self.uniqueByID(cityKeys.compactMap { cityFeatures[$0] }, excluding: interactiveFeatures)
        let features = alertView.annotated(watched + interactiveFeatures + deviceFeatures)
        // A round that changed no feature is no change, even though `focus` would go back to null.
        if onlyIfChanged, overlays.seq > 0, features == overlays.features, alertView.areas == overlays.areas { return }
        overlays = Overlays(seq: overlays.seq + 1, focus: focus, features: features, areas: alertView.areas)
        publisher.publish(overlays: overlays)
    }

    /// `features` without repeated ids (the first is kept) and without those of `excluded`.
    static func uniqueByID(_ features: [WeatherFeature], excluding excluded: [WeatherFeature] = []) -> [WeatherFeature] {
        // A few features, as a rule: looking through them is cheaper than hashing their ids
        // into sets at every change (about a microsecond a search, measured).
        guard features.count + excluded.count > 32 else {
            var unique: [WeatherFeature] = []
            unique.reserveCapacity(features.count)
            for feature in features
            where !unique.contains(where: { $0.id == feature.id }) && !excluded.contains(where: { $0.id == feature.id }) {
                unique.append(feature)
            }
            return unique
        }
        var seen = Set(excluded.map(\.id))
        return features.filter { seen.insert($0.id).inserted }
    }
}

extension SearchEngine: Reconfigurable {
    /// New configured cities (`cities`): the stored changes stay on top of them.
    public func apply(_ change: ConfigChange) async {
        if change.changed("cities") { reconfigure(cities: change.new.cities) }
        await refreshBudget()  // the providers, their order or their budgets may have changed
    }
}
