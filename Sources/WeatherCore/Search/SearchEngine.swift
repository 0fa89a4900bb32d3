import Foundation
import Logging

/// The one search stream: every input (watched-city rounds, searches, and later locations and
/// map regions) goes through here, in arrival order. It owns the state and the overlays.
///
/// Latest wins: each interactive input takes a new generation; a result lands in the overlays only
/// if no newer interactive input arrived meanwhile. A superseded search still answers its own
/// requester, but never replaces a newer result.
public actor SearchEngine {
    /// A ticket for one interactive input, from `begin` to `settle`.
    public struct Ticket: Sendable, Hashable {
        public let generation: Int
        public let input: SearchInput
    }

    private let lookups: LookupService
    private let publisher: any ChangePublisher
    private let wallClock: @Sendable () -> Date
    private let logger: Logger

    private var state: DaemonState
    private var overlays: Overlays
    private var watched: WatchedCities
    /// The effective watched cities, in order.
    private var cities: [String]
    /// The last good feature of each watched city, by normalized name.
    private var cityFeatures: [String: WeatherFeature] = [:]
    /// Lookups already counted in `pending` at start for the first round, which has not begun yet.
    private var reservedForFirstRound: Int
    private var interactiveFeatures: [WeatherFeature] = []
    private var latestGeneration = 0
    /// Text and location inputs begun so far: what a debounced region event must not override.
    private var textAndLocationInputs = 0
    private var hasInteractiveInput = false

    /// The maximum number of watched-city lookups of one round in flight at once.
    static let cityRoundConcurrency = 4

    public init(
        cities watched: WatchedCities, gps: GPSStatus, lookups: LookupService, publisher: any ChangePublisher,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.lookups = lookups
        self.publisher = publisher
        self.wallClock = wallClock
        self.logger = logger
        self.watched = watched
        let cities = watched.effective
        self.cities = cities
        self.reservedForFirstRound = cities.count
        let now = wallClock()
        // At start the first watched-city round is due: running and loading until it settles.
        self.state = cities.isEmpty
            ? DaemonState(pending: 0, phase: .empty, input: nil, gps: gps, updatedAt: now)
            : DaemonState(pending: cities.count, phase: .loading, input: .cities, gps: gps, updatedAt: now)
        self.overlays = Overlays(seq: 0, focus: nil, features: [])
        publisher.publish(state: state)
        publisher.publish(overlays: overlays)
    }

    // MARK: Reading

    public var currentState: DaemonState { state }
    public var currentOverlays: Overlays { overlays }
    public var watchedCities: [String] { cities }

    // MARK: Text and location searches

    /// Looks up `city` as an interactive text input and returns its feature to the requester.
    /// - Throws: `WeatherError` from the lookup (also when superseded), or `CancellationError`.
    /// `admitted` is called once the input has entered the stream (before the lookup).
    public func search(city: String, admitted: @Sendable () -> Void = {}) async throws -> WeatherFeature {
        try await lookUpInteractive(.text(city: city), query: .city(city), admitted: admitted) {
            WeatherFeature(observation: $0, source: .text)
        }
    }

    /// Looks up the weather at an accepted gpsd fix as an interactive location input.
    public func locate(_ fix: GPSFix) async throws -> WeatherFeature {
        try await lookUpInteractive(.location(fix.coordinate), query: .coordinate(fix.coordinate), admitted: {}) {
            WeatherFeature(observation: $0, source: .location, fix: FixSummary(fix))
        }
    }

    /// One lookup as an interactive input: the requester always gets its answer; the overlays
    /// only if no newer input arrived meanwhile. The map focuses on the result.
    private func lookUpInteractive(
        _ input: SearchInput, query: LookupQuery, admitted: @Sendable () -> Void,
        feature makeFeature: (WeatherObservation) -> WeatherFeature
    ) async throws -> WeatherFeature {
        let ticket = begin(input, lookups: 1)
        admitted()
        let result: Result<WeatherFeature, WeatherError>
        do {
            result = .success(makeFeature(try await lookups.lookup(query)))
        } catch let error as WeatherError {
            result = .failure(error)
        } catch {
            abandon(ticket, settledLookups: 1)
            throw error
        }
        switch result {
        case .success(let feature):
            settle(ticket, features: [feature], focus: feature.coordinate, failure: nil, settledLookups: 1)
            return feature
        case .failure(let error):
            settle(ticket, features: [], focus: nil, failure: error, settledLookups: 1)
            throw error
        }
    }

    // MARK: The interactive stream (text, location, region)

    /// Registers a new interactive input that will run `lookups` lookups; it supersedes every
    /// older one. The state goes to loading and running at once.
    public func begin(_ input: SearchInput, lookups count: Int) -> Ticket {
        latestGeneration += 1
        if case .region = input {} else { textAndLocationInputs += 1 }
        hasInteractiveInput = true
        var next = state
        next.input = input
        next.phase = .loading
        next.error = nil
        next.pending += count
        commit(next)
        return Ticket(generation: latestGeneration, input: input)
    }

    /// One lookup of an input finished (whatever its outcome).
    public func lookupSettled() {
        lookupsSettled(1)
    }

    /// `count` lookups of an input finished, or were dropped before they were sent.
    public func lookupsSettled(_ count: Int) {
        guard count > 0 else { return }
        var next = state
        next.pending = max(0, next.pending - count)
        commit(next)
    }

    /// The generation of the latest interactive input; it grows with each new one.
    public var currentGeneration: Int { latestGeneration }

    /// How many text and location inputs have begun; a region event that arrived before the latest
    /// of them is older than it and must not start a search after its debounce.
    public var textAndLocationInputCount: Int { textAndLocationInputs }

    /// Whether `ticket` is still the latest interactive input.
    public func isCurrent(_ ticket: Ticket) -> Bool { ticket.generation == latestGeneration }

    /// The outcome of an input. It lands in the overlays only if the input is still the latest.
    /// `failure` with no features makes the phase `error` (or `empty` for not_found).
    /// `settledLookups` of its lookups finish in the same state change (so the state never says
    /// "loading" while nothing is pending).
    public func settle(_ ticket: Ticket, features: [WeatherFeature], focus: Coordinate?, failure: WeatherError?, settledLookups: Int = 0) {
        var next = state
        next.pending = max(0, next.pending - settledLookups)
        guard isCurrent(ticket) else {
            logger.debug("dropping the result of superseded input \(ticket.input)")
            commit(next)
            return
        }
        interactiveFeatures = Self.uniqueByID(features)
        if !interactiveFeatures.isEmpty {
            next.phase = .populated
            next.error = nil
        } else if let failure, failure.code != .notFound {
            next.phase = .error
            next.error = failure
        } else {
            next.phase = .empty
            next.error = nil
        }
        publishOverlays(focus: interactiveFeatures.isEmpty ? nil : focus)
        commit(next)
    }

    /// An input given up (its requester went away): if it was the latest, the phase leaves loading.
    private func abandon(_ ticket: Ticket, settledLookups: Int) {
        var next = state
        next.pending = max(0, next.pending - settledLookups)
        if isCurrent(ticket), state.phase == .loading {
            next.phase = interactiveFeatures.isEmpty ? .empty : .populated
        }
        commit(next)
    }

    // MARK: Watched cities

    /// Adds a watched city: it is looked up first (an unknown city is refused with not_found;
    /// when OpenWeatherMap cannot answer, the city is added anyway and looked up next round), then
    /// stored durably, then shown. Returns the effective list. Adding a watched city changes nothing.
    public func addCity(_ city: String) async throws -> [String] {
        guard !watched.contains(city) else { return cities }
        var feature: WeatherFeature?
        do {
            feature = try await lookUpCity(city)
        } catch let error as WeatherError where error.code != .notFound {
            logger.warning("adding \(city) without weather for now: \(error.message)")
        }
        let list = try watched.add(city)
        setCities(list, lookedUp: feature.map { (city, $0) })
        return list
    }

    /// Removes a watched city, stored durably before it returns the effective list.
    /// - Throws: invalid_params when the city is not watched.
    public func removeCity(_ city: String) throws -> [String] {
        let list = try watched.remove(city)
        setCities(list)
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
        if state.pending == 0 { settleCityPhase(failure: nil) }
    }

    /// Looks up a city to be watched, counted in `pending` like any lookup.
    private func lookUpCity(_ city: String) async throws -> WeatherFeature {
        var next = state
        next.pending += 1
        commit(next)
        defer { lookupSettled() }
        return WeatherFeature(observation: try await lookups.lookup(.city(city)), source: .city)
    }

    /// One round of lookups of every watched city. Failed cities keep their last good feature;
    /// the overlays change once, when the whole round has settled.
    public func refreshCities() async {
        let round = cities
        var next = state
        next.pending += round.count - reservedForFirstRound
        reservedForFirstRound = 0
        if !hasInteractiveInput, !round.isEmpty {
            next.input = .cities
            next.phase = .loading
            next.error = nil
        }
        commit(next)

        var failures: [WeatherError] = []
        // The round's last lookup settles in the same state change as the round's outcome.
        var unsettled = round.count
        await withTaskGroup(of: (String, Result<WeatherObservation, WeatherError>?).self) { group in
            var remaining = round[...]
            func startNext() {
                guard let city = remaining.popFirst() else { return }
                group.addTask { [lookups] in
                    do {
                        return (city, .success(try await lookups.lookup(.city(city))))
                    } catch let error as WeatherError {
                        return (city, .failure(error))
                    } catch {
                        return (city, nil)  // cancelled: shutting down
                    }
                }
            }
            for _ in 0..<Self.cityRoundConcurrency { startNext() }
            for await (city, result) in group {
                unsettled -= 1
                if unsettled > 0 { lookupSettled() }
                switch result {
                case .success(let observation):
                    if cities.contains(city) {
                        cityFeatures[LookupKey.normalize(city: city)] = WeatherFeature(observation: observation, source: .city)
                    }
                case .failure(let error):
                    logger.warning("watched city \(city): \(error.message)")
                    failures.append(error)
                case nil:
                    break
                }
                startNext()
            }
        }
        let heldBack = round.isEmpty ? 0 : 1
        if Task.isCancelled {
            if heldBack > 0 { lookupSettled() }
            return
        }
        publishOverlays(focus: nil, onlyIfChanged: true)
        settleCityPhase(failure: failures.first { $0.code != .notFound }, settledLookups: heldBack)
    }

    /// Before any interactive input, the phase is that of the watched cities.
    /// `settledLookups` finish in the same state change.
    private func settleCityPhase(failure: WeatherError?, settledLookups: Int = 0) {
        var settled = state
        settled.pending = max(0, settled.pending - settledLookups)
        if !hasInteractiveInput {
            if cities.contains(where: { cityFeatures[LookupKey.normalize(city: $0)] != nil }) {
                settled.phase = .populated
                settled.error = nil
            } else if let failure {
                settled.phase = .error
                settled.error = failure
            } else {
                settled.phase = .empty
                settled.error = nil
            }
            settled.input = cities.isEmpty ? nil : .cities
        }
        commit(settled)
    }

    // MARK: gpsd

    /// Records what is known of gpsd; a change is published.
    public func updateGPS(_ gps: GPSStatus) {
        var next = state
        next.gps = gps
        commit(next)
    }

    // MARK: Publishing

    private func commit(_ next: DaemonState) {
        guard !next.sameFields(as: state) else { return }
        state = next
        state.updatedAt = wallClock()
        publisher.publish(state: state)
    }

    /// Publishes the overlays as a new change (`seq` + 1). A result of an interactive input is
    /// always a change (the map re-centres on it); a city round only when its features differ.
    private func publishOverlays(focus: Coordinate?, onlyIfChanged: Bool = false) {
        let interactiveIDs = Set(interactiveFeatures.map(\.id))
        let watched = Self.uniqueByID(cities.compactMap { cityFeatures[LookupKey.normalize(city: $0)] })
            .filter { !interactiveIDs.contains($0.id) }
        let features = watched + interactiveFeatures
        if onlyIfChanged, overlays.seq > 0, features == overlays.features, focus == overlays.focus { return }
        overlays = Overlays(seq: overlays.seq + 1, focus: focus, features: features)
        publisher.publish(overlays: overlays)
    }

    private static func uniqueByID(_ features: [WeatherFeature]) -> [WeatherFeature] {
        var seen = Set<String>()
        return features.filter { seen.insert($0.id).inserted }
    }
}
