import Foundation
import Logging
import Synchronization
import WeatherCore
import WeatherSessions

@testable import TestSupport

/// An in-memory `WeatherUpstream` (a small cousin of TestSupport's `ScriptedUpstream`): a city
/// it was given is a place at its observation's coordinate, which answers with that observation; any
/// other name is not found, and any other coordinate answers with a station at that very place.
final class MemoryUpstream: WeatherUpstream, Sendable {
    var provider: WeatherProviderName { .openWeatherMap }
    private let cities: [String: WeatherObservation]

    /// - Parameter cities: the known cities, by name (matched case-insensitively).
    init(cities: [String: WeatherObservation] = [:]) {
        self.cities = Dictionary(uniqueKeysWithValues: cities.map { ($0.key.lowercased(), $0.value) })
    }

    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        guard let observation = cities[query.description.lowercased()] ?? cities[query.name.lowercased()] else { return [] }
        return [
            Place(
                name: observation.name ?? query.name, country: observation.country, coordinate: observation.coordinate,
                provider: "openweathermap")
        ]
    }

    func fetch(at coordinate: Coordinate) async throws -> WeatherObservation {
        cities.values.first { $0.coordinate == coordinate }
            ?? sampleObservation("Somewhere", id: 1, lat: coordinate.lat, lon: coordinate.lon)
    }
}

/// The daemon's publisher (the `NotificationHub`) with every published state also kept, so a test
/// can await a state instead of sleeping.
final class ObservingPublisher: ChangePublisher, Sendable {
    let hub = NotificationHub()
    let states = Observed<[DaemonState]>([])

    func publish(state: DaemonState) {
        hub.publish(state: state)
        states.update { $0.append(state) }
    }

    func publish(overlays: Overlays) {
        hub.publish(overlays: overlays)
    }

    /// Waits until `check`, given every state published so far in order, finds what it looks for.
    @discardableResult
    func waitForStates<R: Sendable>(
        _ what: String, timeout: Duration = safetyDeadline, _ check: @escaping @Sendable ([DaemonState]) -> R?
    ) async throws -> R {
        try await states.wait(for: "\(what); published so far: \(states.value.map(\.json.serialized))", timeout: timeout) {
            check($0)
        }
    }

    /// The first state published so far, or later, that matches `matches`.
    @discardableResult
    func waitForState(
        _ what: String, timeout: Duration = safetyDeadline, where matches: @escaping @Sendable (DaemonState) -> Bool
    ) async throws -> DaemonState {
        try await states.wait(for: "a state where \(what); published so far: \(states.value.map(\.json.serialized))", timeout: timeout) {
            $0.first(where: matches)
        }
    }
}

/// The core services the adapters are wired to in the daemon (`Daemon.run`): lookups over an
/// in-memory upstream, the search engine with no watched cities, the location service, region
/// searches and the request handler, publishing through an `ObservingPublisher`.
struct CoreHarness {
    let upstream: MemoryUpstream
    let publisher = ObservingPublisher()
    let lookups: LookupService
    let engine: SearchEngine
    let location: LocationService
    let regions: RegionSearches
    let handler: RequestHandler

    /// - Parameters:
    ///   - cities: what the upstream knows, by name.
    ///   - gpsEnabled: `gpsd.enabled`.
    ///   - clock: the clock of the location service and the region searches.
    ///   - cacheTTL: `weather.cache_ttl` (none by default: every lookup asks the upstream).
    ///   - store: where `cities.add` stores the watched cities.
    init(
        cities: [String: WeatherObservation] = [:], gpsEnabled: Bool = false, clock: DaemonClock = .continuous,
        cacheTTL: Duration = .zero, store: any CityStore = NoCityStore()
    ) throws {
        upstream = MemoryUpstream(cities: cities)
        lookups = LookupService(
            upstream: upstream, limits: .init(cacheTTL: cacheTTL, requestsPerMinute: 1000), clock: clock, logger: silentLogger)
        engine = SearchEngine(
            cities: try WatchedCities(configured: [], store: store), gps: GPSStatus(enabled: gpsEnabled),
            lookups: lookups, publisher: publisher, logger: silentLogger)
        location = LocationService(
            settings: .init(enabled: gpsEnabled, maxHorizontalError: 100, locateTimeout: .seconds(30), follow: false, followDistance: 1000),
            engine: engine, clock: clock, logger: silentLogger)
        regions = RegionSearches(
            settings: .init(debounce: .milliseconds(250), around: 1, concurrency: 4), engine: engine,
            clock: clock, logger: silentLogger)
        handler = RequestHandler(engine: engine, location: location, regions: regions, hub: publisher.hub, logger: silentLogger)
    }
}

/// A city store that keeps nothing.
struct NoCityStore: CityStore {
    func load() throws -> CityChanges { CityChanges() }
    func save(_ changes: CityChanges) throws {}
}
