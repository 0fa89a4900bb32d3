import Synchronization
@testable import WeatherCore
@testable import TestSupport

/// An in-memory `WeatherUpstream`: per-query results (keyed like the cache, so `" london "` is
/// `"London"`), optionally held behind a gate, with every fetch recorded. A query without a
/// script is not found.
final class ScriptedUpstream: WeatherUpstream, Sendable {
    private struct Script {
        var result: Result<WeatherObservation, UpstreamError>
        var gate: Gate?
    }

    private struct State {
        var scripts: [LookupKey: Script] = [:]
        var forecasts: [LookupKey: Result<WeatherForecast, UpstreamError>] = [:]
        var forecastFetches: [LookupQuery] = []
        var fetches: [LookupQuery] = []
        /// Fetches started and not yet finished (held at a gate or not), and the most at once.
        var inFlight = 0
        var maxInFlight = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Answers `city` with `observation`.
    func answer(_ city: String, with observation: WeatherObservation) {
        script(.city(city), .success(observation))
    }

    /// Answers `city` with `error`.
    func fail(_ city: String, with error: UpstreamError) {
        script(.city(city), .failure(error))
    }

    /// Sets the result of `query`; with `gated`, fetches wait behind the returned gate.
    @discardableResult
    func script(_ query: LookupQuery, _ result: Result<WeatherObservation, UpstreamError>, gated: Bool = false) -> Gate {
        let gate = Gate(open: !gated)
        state.withLock { $0.scripts[query.key] = Script(result: result, gate: gate) }
        return gate
    }

    /// Answers forecasts of `query` with `result` (a query without one is not found).
    func scriptForecast(_ query: LookupQuery, _ result: Result<WeatherForecast, UpstreamError>) {
        state.withLock { $0.forecasts[query.key] = result }
    }

    /// Every forecast fetch so far, in order (they are not in `fetches`).
    var forecastFetches: [LookupQuery] { state.withLock { $0.forecastFetches } }

    func fetchForecast(_ query: LookupQuery) async throws -> WeatherForecast {
        let result = state.withLock { state in
            state.forecastFetches.append(query)
            return state.forecasts[query.key]
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

    /// How many fetches of `query` (by its key, so coordinates to 0.01°) were made.
    func fetchCount(of query: LookupQuery) -> Int {
        state.withLock { $0.fetches.filter { $0.key == query.key }.count }
    }

    func fetchCount(of city: String) -> Int {
        let key = LookupQuery.city(city).key
        return state.withLock { $0.fetches.filter { $0.key == key }.count }
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

    func fetch(_ query: LookupQuery) async throws -> WeatherObservation {
        let (script, ready) = state.withLock { state in
            state.fetches.append(query)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let reached = state.fetches.count
            let ready = state.waiters.filter { $0.count <= reached }.map(\.continuation)
            state.waiters.removeAll { $0.count <= reached }
            return (state.scripts[query.key], ready)
        }
        for waiter in ready { waiter.resume() }
        defer { state.withLock { $0.inFlight -= 1 } }
        guard let script else { throw UpstreamError.notFound(message: "city not found") }
        await script.gate?.pass()
        try Task.checkCancellation()
        return try script.result.get()
    }
}
