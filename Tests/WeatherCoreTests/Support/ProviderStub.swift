import Synchronization

@testable import WeatherCore

/// An in-memory provider for the failover tests: every name but `Atlantis` is one place (at a spot
/// of its own), and the weather anywhere is an observation stamped with this provider's name. Each
/// call can be made to fail, for a number of calls or until told otherwise; every call is counted.
final class ProviderStub: WeatherUpstream, Sendable {
    enum Call: Equatable {
        case places(String)
        case weather(Coordinate)
        /// One request for several points.
        case together([Coordinate])
        case forecast(Coordinate)
    }

    private struct State {
        var calls: [Call] = []
        /// Requests for several points wait until released (or cancelled) while this holds.
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var cancelled = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Failures to answer with, oldest first; the last one stays while `failing` holds.
        var failures: [UpstreamError] = []
        var failing: UpstreamError?
    }

    let provider: WeatherProviderName
    let maxPointsPerRequest: Int
    private let state = Mutex(State())

    init(_ provider: WeatherProviderName, maxPointsPerRequest: Int = 1) {
        self.provider = provider
        self.maxPointsPerRequest = maxPointsPerRequest
    }

    /// Every call fails with `error` from now on (nil: none fails).
    func fail(with error: UpstreamError?) {
        state.withLock { $0.failing = error }
    }

    /// The next `count` calls fail with `error`.
    func failNext(_ count: Int = 1, with error: UpstreamError) {
        state.withLock { $0.failures += Array(repeating: error, count: count) }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    /// Held requests that ended because their task was cancelled.
    var cancelledCount: Int { state.withLock { $0.cancelled } }

    /// Holds requests for several points from now on, until ``release()`` or their cancellation.
    func hold() {
        state.withLock { $0.holding = true }
    }

    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Returns once at least `count` calls have arrived.
    func waitForCalls(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.calls.count >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
    var callCount: Int { state.withLock { $0.calls.count } }

    private func call(_ call: Call) throws(UpstreamError) {
        let (error, ready) = state.withLock { state -> (UpstreamError?, [CheckedContinuation<Void, Never>]) in
            state.calls.append(call)
            let reached = state.calls.count
            let ready = state.arrivalWaiters.filter { $0.count <= reached }.map(\.continuation)
            state.arrivalWaiters.removeAll { $0.count <= reached }
            if !state.failures.isEmpty { return (state.failures.removeFirst(), ready) }
            return (state.failing, ready)
        }
        for waiter in ready { waiter.resume() }
        if let error { throw error }
    }

    /// Waits while requests are held; throws when the task is cancelled meanwhile.
    private func waitWhileHeld() async throws {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.holding, !Task.isCancelled else { return true }
                    state.held.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            // Every held request ends: the tests hold one at a time.
            let held = state.withLock { state in
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }
        if Task.isCancelled {
            state.withLock { $0.cancelled += 1 }
            throw CancellationError()
        }
    }

    static func spot(of name: String) -> Coordinate {
        let hash = name.lowercased().unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) % 10_000 }
        return Coordinate(lat: Double(hash % 80), lon: Double(hash % 170))
    }

    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        try call(.places(query.name))
        if query.name.lowercased() == "atlantis" { return [] }
        return [
            Place(
                name: query.name, country: query.country, coordinate: Self.spot(of: query.name), provider: provider.rawValue,
                geonamesID: provider == .openMeteo ? 1000 + Int(Self.spot(of: query.name).lat) : nil)
        ]
    }

    func observation(at coordinate: Coordinate) -> WeatherObservation {
        var observation = WeatherObservation(coordinate: coordinate, temperature: provider == .openMeteo ? 2 : 1, units: .metric)
        observation.provider = provider.rawValue
        return observation
    }

    func fetch(at coordinate: Coordinate) async throws -> WeatherObservation {
        try call(.weather(coordinate))
        return observation(at: coordinate)
    }

    func fetch(at coordinates: [Coordinate]) async throws -> [WeatherObservation] {
        try call(.together(coordinates))
        try await waitWhileHeld()
        return coordinates.map(observation(at:))
    }

    func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        try call(.forecast(coordinate))
        return WeatherForecast(
            place: observation(at: coordinate), steps: [], step: provider == .openMeteo ? ForecastStep.oneHour : ForecastStep.threeHours)
    }
}
