import Synchronization

@testable import WeatherCore

/// An in-memory `WeatherUpstream`. A scripted city is one place (named as its observation, at its
/// observation's coordinate, or at a coordinate of its own when it is scripted to fail), whose
/// weather is the scripted result, optionally held behind a gate; names are matched as the cache
/// matches them (`" london "` is `"London"`). Every fetch is recorded. A name without a script is
/// unknown (no places); a point without one is not found.
final class ScriptedUpstream: WeatherUpstream, Sendable {
    private struct Script {
        var result: Result<WeatherObservation, UpstreamError>
        var gate: Gate?
    }

    private struct State {
        var places: [String: Result<[Place], UpstreamError>] = [:]
        var scripts: [LookupKey: Script] = [:]
        var forecasts: [LookupKey: Result<WeatherForecast, UpstreamError>] = [:]
        var placeFetches: [String] = []
        var forecastFetches: [LookupQuery] = []
        var fetches: [LookupQuery] = []
        /// Fetches started and not yet finished (held at a gate or not), and the most at once.
        var inFlight = 0
        var maxInFlight = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Coordinates given so far to cities scripted without an observation.
        var spots = 0

        /// Where the place of `name` is: where it was scripted before (a new script is the weather of
        /// the same place, as the lookups keep a name's places), `observation`'s, or a new spot.
        mutating func coordinate(of name: String, observation: WeatherObservation?) -> Coordinate {
            if case .success(let places)? = places[LookupKey.normalize(city: name)], let first = places.first {
                return first.coordinate
            }
            if let observation { return observation.coordinate }
            spots += 1
            return Coordinate(lat: -80 + Double(spots) / 4, lon: -170 + Double(spots) / 4)
        }

        /// The coordinate a query is looked up at, scripting the place of a city on the way.
        mutating func point(of query: LookupQuery, observation: WeatherObservation?) -> Coordinate {
            switch query {
            case .coordinate(let c): return c
            case .place(let place): return place.coordinate
            case .city(let name):
                let coordinate = coordinate(of: name, observation: observation)
                let parsed = PlaceQuery(name)
                if case .success(let kept)? = places[LookupKey.normalize(city: name)], !kept.isEmpty { return coordinate }
                places[LookupKey.normalize(city: name)] = .success([
                    Place(
                        name: observation?.name ?? parsed.name, country: observation?.country ?? parsed.country,
                        coordinate: coordinate, provider: "openweathermap")
                ])
                return coordinate
            }
        }
    }

    private let state = Mutex(State())
    let provider: WeatherProviderName

    init(provider: WeatherProviderName = .openWeatherMap) {
        self.provider = provider
    }

    /// Answers `city` with `observation`.
    func answer(_ city: String, with observation: WeatherObservation) {
        script(.city(city), .success(observation))
    }

    /// Answers the weather of `city` with `error` (its place is found).
    func fail(_ city: String, with error: UpstreamError) {
        script(.city(city), .failure(error))
    }

    /// Answers the geocoding of `name` with `error`.
    func failPlaces(_ name: String, with error: UpstreamError) {
        state.withLock { $0.places[LookupKey.normalize(city: name)] = .failure(error) }
    }

    /// Answers the geocoding of `name` with `places`.
    func scriptPlaces(_ name: String, _ places: [Place]) {
        state.withLock { $0.places[LookupKey.normalize(city: name)] = .success(places) }
    }

    /// Sets the weather of `query` (for a city: of its place); with `gated`, fetches wait behind the
    /// returned gate.
    @discardableResult
    func script(_ query: LookupQuery, _ result: Result<WeatherObservation, UpstreamError>, gated: Bool = false) -> Gate {
        let gate = Gate(open: !gated)
        state.withLock { state in
            let point = state.point(of: query, observation: try? result.get())
            state.scripts[point.lookupKey] = Script(result: result, gate: gate)
        }
        return gate
    }

    /// Answers forecasts of `query` (for a city: of its place) with `result` (a point without one is
    /// not found).
    func scriptForecast(_ query: LookupQuery, _ result: Result<WeatherForecast, UpstreamError>) {
        state.withLock { state in
            let point = state.point(of: query, observation: try? result.get().place)
            state.forecasts[point.lookupKey] = result
        }
    }

    /// The coordinate the place of `city` was scripted at.
    func coordinate(of city: String) -> Coordinate? {
        state.withLock { state in
            guard case .success(let places)? = state.places[LookupKey.normalize(city: city)] else { return nil }
            return places.first?.coordinate
        }
    }

    /// Every geocoding request so far, in order, as `Name,ST,CC`.
    var placeFetches: [String] { state.withLock { $0.placeFetches } }

    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        let result = state.withLock { state in
            state.placeFetches.append(query.description)
            return state.places[LookupKey.normalize(city: query.description)]
        }
        return Array(try result?.get().prefix(limit) ?? [])
    }

    /// Every forecast fetch so far, in order, by coordinate (they are not in `fetches`).
    var forecastFetches: [LookupQuery] { state.withLock { $0.forecastFetches } }

    func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        let result = state.withLock { state in
            state.forecastFetches.append(.coordinate(coordinate))
            return state.forecasts[coordinate.lookupKey]
        }
        guard let result else { throw UpstreamError.notFound(message: "city not found") }
        return try result.get()
    }

    /// Every fetch so far, in order.
    var fetches: [LookupQuery] { state.withLock { $0.fetches } }
    var fetchCount: Int { state.withLock { $0.fetches.count } }

    /// Fetches started and not yet finished now, and the most there were at once so far.
    var inFlight: Int { state.withLock { $0.inFlight } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// How many weather fetches of `query` (for a city: at its place; coordinates to 0.01°) were made.
    func fetchCount(of query: LookupQuery) -> Int {
        let coordinate: Coordinate? =
            switch query {
            case .coordinate(let c): c
            case .place(let place): place.coordinate
            case .city(let name): self.coordinate(of: name)
            }
        guard let key = coordinate?.lookupKey else { return 0 }
        return state.withLock { state in
            state.fetches.filter { if case .coordinate(let c) = $0 { c.lookupKey == key } else { false } }.count
        }
    }

    func fetchCount(of city: String) -> Int {
        fetchCount(of: .city(city))
    }

    /// Returns once at least `count` fetches have started.
    func waitForFetches(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.fetches.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func fetch(at coordinate: Coordinate) async throws -> WeatherObservation {
        let (script, ready) = state.withLock { state in
            state.fetches.append(.coordinate(coordinate))
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let reached = state.fetches.count
            let ready = state.waiters.filter { $0.count <= reached }.map(\.continuation)
            state.waiters.removeAll { $0.count <= reached }
            return (state.scripts[coordinate.lookupKey], ready)
        }
        for waiter in ready { waiter.resume() }
        defer { state.withLock { $0.inFlight -= 1 } }
        guard let script else { throw UpstreamError.notFound(message: "city not found") }
        await script.gate?.pass()
        try Task.checkCancellation()
        return try script.result.get()
    }
}
