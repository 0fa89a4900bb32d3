#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules of the one search stream, as a plain state machine: each event (an input entering, a
/// lookup answered, an input settling, a watched-city round, a location or provider change, a new
/// fused location, a tick of the clock) goes in with the time it happens at, and the effects to run
/// come out, in order. No actor, clock or upstream: ``SearchEngine`` runs the lookups, feeds their
/// outcomes back in and runs the effects.
///
/// What it decides:
/// - **Latest wins**: each interactive input takes a new generation; its outcome lands in the
///   overlays only while it is the latest (a superseded input still answers its own requester).
/// - **`pending`/`running`**: the lookups of every input in progress (``PendingLookups``).
/// - **The phase**: it follows the watched-city rounds until the first interactive input, then the
///   latest interactive input.
/// - **The overlays' membership and focus** (``OverlayMembership``): the watched cities' last good
///   features, then the latest interactive input's; `seq` grows by one per change.
/// - **Which state changes are news**: not `budget.used` or the providers' request counts alone, and a
///   change of the location alone as ``LocationNoticeState`` lets through (a held one is sent by
///   ``tick(at:)``).
/// - **Follow mode** (``FollowPolicy``): a new fused location that moved `location.follow_distance`
///   from the last searched point is searched (``Effect/followSearch(_:)``); a location search, and a
///   fix a `locate` took, count as searched; a resume forgets the last searched point.
struct SearchStream: Sendable {
    /// When an event happens: the wall clock (`updated_at`) and the daemon's clock (the notice throttle).
    struct Now: Sendable {
        var wall: Date
        var instant: DaemonClock.Instant
    }

    /// What to do after an event, in the order given.
    enum Effect: Sendable, Equatable {
        /// Publish this state to every watcher (after the turn).
        case publishState(DaemonState)
        /// Publish these overlays to every watcher (after the turn).
        case publishOverlays(Overlays)
        /// A state notification is held until `until`: send ``tick(at:)`` then.
        case armNoticeTimer(until: DaemonClock.Instant)
        /// The region search of `generation` is superseded: stop its lookups, in flight and queued.
        case cancelRegion(generation: Int)
        /// Follow mode: search the weather at this fused location (after the turn, as a location
        /// input; a newer one asked for before it began replaces it).
        case followSearch(LocationFix)
    }

    /// A ticket for one interactive input, from its start to its outcome.
    struct Ticket: Sendable, Hashable {
        let generation: Int
        let input: SearchInput
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

    /// The state as last taken in (the one published, or held back by the notice throttle).
    private(set) var state: DaemonState
    private(set) var overlays: Overlays
    /// The effective watched cities, in order.
    private(set) var cities: [String] {
        didSet { cityKeys = cities.map(LookupKey.normalize(city:)) }
    }
    /// `cities` normalized (the keys of `cityFeatures`), kept rather than made at every change.
    private var cityKeys: [String]
    /// The last good feature of each watched city, by normalized name.
    private var cityFeatures: [String: WeatherFeature] = [:]
    /// The features of the latest interactive input that landed.
    private var interactiveFeatures: [WeatherFeature] = []
    /// The OwnTracks devices' features, a background layer after the watched cities'.
    private var deviceFeatures: [WeatherFeature] = []
    /// The alerts of the places on the map and their areas (``alertsChanged(_:)``); empty without alerts.
    private(set) var alertView = AlertView()
    private var pending = PendingLookups()
    /// The first watched-city round's lookups, counted from the start until it begins.
    private var firstRound: PendingLookups.Run?
    /// The generation of the latest interactive input; it grows with each new one.
    private(set) var generation = 0
    /// Text and location inputs begun so far: what a debounced region event must not override.
    private(set) var textAndLocationInputs = 0
    private var phaseSource = PhaseSource.cities
    /// The region search in progress (its generation), cancelled when a newer input begins.
    private var regionInProgress: Int?
    private var locationNotices = LocationNoticeState()
    /// Follow mode's settings and last searched point; off until the location input reports its settings.
    private(set) var follow = FollowPolicy(distance: 0, enabled: false)
    /// The effects of the event being handled.
    private var effects: [Effect] = []

    /// The stream at start: the first watched-city round is due (running and loading until it
    /// settles); without cities, empty. ``startEffects`` publishes it.
    init(cities: [String], gps: GPSStatus, budget: BudgetStatus, providers: [ProviderStatus], now: Date) {
        self.cities = cities
        self.cityKeys = cities.map(LookupKey.normalize(city:))
        self.firstRound = cities.isEmpty ? nil : pending.open(cities.count)
        self.state =
            cities.isEmpty
            ? DaemonState(pending: 0, phase: .empty, input: nil, gps: gps, budget: budget, providers: providers, updatedAt: now)
            : DaemonState(
                pending: cities.count, phase: .loading, input: .cities, gps: gps, budget: budget, providers: providers, updatedAt: now)
        self.overlays = Overlays(seq: 0, focus: nil, features: [])
    }

    /// What goes out at start: the first state and the empty overlays.
    var startEffects: [Effect] { [.publishState(state), .publishOverlays(overlays)] }

    /// Each watched city with the feature of its latest good lookup (stale while its refresh fails),
    /// in list order; a city not looked up yet is left out.
    var watchedCityFeatures: [(city: String, feature: WeatherFeature)] {
        zip(cities, cityKeys).compactMap { city, key in cityFeatures[key].map { (city, $0) } }
    }

    /// When the held state notification is due, if one is held.
    var noticeDue: DaemonClock.Instant? { locationNotices.heldUntil }

    /// Whether `ticket` is still the latest interactive input.
    func isCurrent(_ ticket: Ticket) -> Bool { ticket.generation == generation }

    // MARK: Interactive inputs

    /// A new interactive input (text, location, region) that will run `count` lookups: it supersedes
    /// every older one (a region search in progress is cancelled). Loading and running at once.
    mutating func begin(_ input: SearchInput, lookups count: Int, at now: Now) -> (ticket: Ticket, effects: [Effect]) {
        generation += 1
        if let region = regionInProgress { effects.append(.cancelRegion(generation: region)) }
        if case .region = input {
            regionInProgress = generation
        } else {
            regionInProgress = nil
            textAndLocationInputs += 1
        }
        if case .location(let point) = input { follow.searched(point) }
        phaseSource = .interactive(generation: generation)
        let run = pending.open(count)
        var next = state
        next.input = input
        transition(&next, from: phaseSource, .began)
        commit(next, at: now)
        return (Ticket(generation: generation, input: input, run: run), takeEffects())
    }

    /// `count` lookups of `run` were answered (or dropped before they were sent); the last of a run
    /// stays counted until its outcome (``settle(_:features:focus:failure:at:)``, ``closeLookup(_:at:)``).
    mutating func answered(_ run: PendingLookups.Run, count: Int = 1, at now: Now) -> [Effect] {
        guard count > 0 else { return [] }
        pending.settle(run, count)
        commit(state, at: now)
        return takeEffects()
    }

    /// The outcome of an interactive input, with the last of its lookups: it lands in the overlays
    /// (focused on `focus` when it has features) only if the input is still the latest.
    mutating func settle(
        _ ticket: Ticket, features: [WeatherFeature], focus: Coordinate?, failure: WeatherError?, at now: Now
    ) -> (landed: Bool, effects: [Effect]) {
        pending.close(ticket.run)
        if regionInProgress == ticket.generation { regionInProgress = nil }
        var next = state
        guard isCurrent(ticket) else {
            commit(next, at: now)
            return (false, takeEffects())
        }
        interactiveFeatures = OverlayMembership.uniqueByID(features)
        transition(
            &next, from: .interactive(generation: ticket.generation),
            .settled(hasFeatures: !interactiveFeatures.isEmpty, failure: failure))
        publishOverlays(focus: interactiveFeatures.isEmpty ? nil : focus)
        commit(next, at: now)
        return (true, takeEffects())
    }

    /// The requester of an interactive input went away before its outcome: its lookups are settled,
    /// and the phase leaves loading if it follows that input.
    mutating func abandon(_ ticket: Ticket, at now: Now) -> [Effect] {
        pending.close(ticket.run)
        if regionInProgress == ticket.generation { regionInProgress = nil }
        var next = state
        transition(&next, from: .interactive(generation: ticket.generation), .abandoned(hasFeatures: !interactiveFeatures.isEmpty))
        commit(next, at: now)
        return takeEffects()
    }

    /// A region grid's outcome from its points' answers: the points answered, in grid order (those
    /// that failed are left out); with none, the first failure other than not_found (else not_found).
    static func gridOutcome(
        _ points: [RegionGrid.Point], _ answers: [Result<WeatherObservation, WeatherError>?]
    ) -> (features: [WeatherFeature], failure: WeatherError?) {
        var features: [WeatherFeature] = []
        var failures: [WeatherError] = []
        for (point, answer) in zip(points, answers) {
            switch answer {
            case .success(let observation)?: features.append(WeatherFeature(observation: observation, source: point.source))
            case .failure(let error)?: failures.append(error)
            case nil: break
            }
        }
        return (features, features.isEmpty ? failures.first(where: { $0.code != .notFound }) ?? failures.first : nil)
    }

    // MARK: Watched cities

    /// One lookup outside the interactive inputs begins (a city being added): counted in `pending`.
    mutating func openLookup(at now: Now) -> (run: PendingLookups.Run, effects: [Effect]) {
        let run = pending.open(1)
        commit(state, at: now)
        return (run, takeEffects())
    }

    /// The lookups of `run` are over (``openLookup(at:)``).
    mutating func closeLookup(_ run: PendingLookups.Run, at now: Now) -> [Effect] {
        pending.close(run)
        commit(state, at: now)
        return takeEffects()
    }

    /// The effective cities are now `newCities` (a city added or removed, a reload). Features of
    /// cities no longer watched leave the overlays; `lookedUp` adds a feature already fetched for a city.
    mutating func citiesChanged(
        _ newCities: [String], lookedUp: (city: String, feature: WeatherFeature)? = nil, at now: Now
    ) -> [Effect] {
        cities = newCities
        let keys = Set(cityKeys)
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
        if pending.total == 0 { settleCities(failure: nil, run: nil, at: now) }
        return takeEffects()
    }

    /// A watched-city round begins: the cities to look up and their lookups' run.
    mutating func roundBegan(at now: Now) -> (cities: [String], run: PendingLookups.Run, effects: [Effect]) {
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
        commit(next, at: now)
        return (round, run, takeEffects())
    }

    /// A watched-city round settled, each city with its result (nil: not looked up). A city that
    /// failed keeps its last good feature, marked stale; the overlays change once, and only if a
    /// feature changed.
    mutating func roundSettled(
        _ results: [(city: String, result: Result<WeatherObservation, WeatherError>?)], run: PendingLookups.Run, at now: Now
    ) -> [Effect] {
        var failures: [WeatherError] = []
        for (city, result) in results {
            let key = LookupKey.normalize(city: city)
            switch result {
            case .success(let observation)?:
                if cityKeys.contains(key) { cityFeatures[key] = WeatherFeature(observation: observation, source: .city) }
            case .failure(let error)?:
                failures.append(error)
                cityFeatures[key]?.stale = true
            case nil:
                break
            }
        }
        publishOverlays(focus: nil, onlyIfChanged: true)
        settleCities(failure: failures.first { $0.code != .notFound }, run: run, at: now)
        return takeEffects()
    }

    /// A watched-city round was abandoned (shutting down): the phase leaves loading with it.
    mutating func roundAbandoned(_ run: PendingLookups.Run, at now: Now) -> [Effect] {
        pending.close(run)
        var next = state
        transition(&next, from: .cities, .abandoned(hasFeatures: cityKeys.contains { cityFeatures[$0] != nil }))
        commit(next, at: now)
        return takeEffects()
    }

    /// The outcome of the watched cities, with the last of their lookups (`run`, if a round ran): the
    /// phase while it follows them.
    private mutating func settleCities(failure: WeatherError?, run: PendingLookups.Run?, at now: Now) {
        if let run { pending.close(run) }
        var next = state
        if phaseSource == .cities { next.input = cities.isEmpty ? nil : .cities }
        transition(&next, from: .cities, .settled(hasFeatures: cityKeys.contains { cityFeatures[$0] != nil }, failure: failure))
        commit(next, at: now)
    }

    // MARK: Providers, locations, time

    /// The budget and the providers as they are now: news when a block started or ended, a provider
    /// failed or recovered, or a limit changed; not for request counts alone.
    mutating func providersChanged(
        budget: BudgetStatus, providers: [ProviderStatus], services: [ServiceStatus], at now: Now
    ) -> [Effect] {
        var next = state
        next.budget = budget
        next.providers = providers
        next.services = services
        commit(next, at: now)
        return takeEffects()
    }

    /// What is known of gpsd, the fused location and its sources; with `follow`, what follow mode
    /// is told with it (its settings, a new fused location, a fix a `locate` took, a resume).
    mutating func locationChanged(
        gps: GPSStatus, location: LocationFix?, sources: [LocationSourceStatus], follow report: FollowReport? = nil, at now: Now
    ) -> [Effect] {
        var next = state
        next.gps = gps
        next.location = location
        next.locationSources = sources
        commit(next, at: now)
        if let report, let fix = follow.take(report) { effects.append(.followSearch(fix)) }
        return takeEffects()
    }

    /// The OwnTracks devices' features: a layer of the overlays after the watched cities'.
    mutating func devicesChanged(_ features: [WeatherFeature]) -> [Effect] {
        guard features != deviceFeatures else { return [] }
        deviceFeatures = features
        publishOverlays(focus: nil, onlyIfChanged: true)
        return takeEffects()
    }

    /// What the alert service knows: the features at those places carry their alerts, and the alert
    /// areas follow the features in the overlays (a change only when something differs; it never
    /// moves the map).
    mutating func alertsChanged(_ view: AlertView) -> [Effect] {
        guard view != alertView else { return [] }
        alertView = view
        publishOverlays(focus: nil, onlyIfChanged: true)
        return takeEffects()
    }

    /// The time has come (``Effect/armNoticeTimer(until:)``): a held state notification goes out if due.
    mutating func tick(at now: Now) -> [Effect] {
        switch locationNotices.due(now: now.instant) {
        case .send?: return [.publishState(state)]
        case .hold(let until)?: return [.armNoticeTimer(until: until)]
        case nil: return []
        }
    }

    // MARK: The phase and publishing

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

    /// Takes in a new state (with `pending` as counted now) and publishes it if it is news: not for
    /// the budget's or providers' request counts alone, and for the location alone as
    /// ``LocationNoticeState`` says (a later one waits, the latest wins).
    private mutating func commit(_ next: consuming DaemonState, at now: Now) {
        next.pending = pending.total
        guard !next.sameFields(as: state) else { return }
        let locationOnly = next.changesOnlyLocation(from: state)
        next.updatedAt = now.wall
        state = next
        switch locationNotices.changed(locationOnly: locationOnly, location: state.noticeLocation, now: now.instant) {
        case .send: effects.append(.publishState(state))
        case .hold(let until): effects.append(.armNoticeTimer(until: until))
        }
    }

    /// Publishes the overlays as a new change (`seq` + 1). A result of an interactive input is
    /// always a change (the map re-centres on it); a city round only when its features differ.
    private mutating func publishOverlays(focus: Coordinate?, onlyIfChanged: Bool = false) {
        let cities = cityKeys.compactMap { cityFeatures[$0] }
        let features = alertView.annotated(
            OverlayMembership.features(
                background: deviceFeatures.isEmpty ? [cities] : [cities, deviceFeatures], focused: interactiveFeatures))
        // A round that changed no feature is no change, even though `focus` would go back to null.
        if onlyIfChanged, overlays.seq > 0, features == overlays.features, alertView.areas == overlays.areas { return }
        overlays = Overlays(seq: overlays.seq + 1, focus: focus, features: features, areas: alertView.areas)
        effects.append(.publishOverlays(overlays))
    }

    private mutating func takeEffects() -> [Effect] {
        defer { effects.removeAll(keepingCapacity: true) }
        return effects
    }
}
