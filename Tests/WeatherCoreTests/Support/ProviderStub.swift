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
    var callCount: Int { state.withLock { $0.calls.count } }

    private func call(_ call: Call) throws(UpstreamError) {
        let error = state.withLock { state -> UpstreamError? in
            state.calls.append(call)
            if !state.failures.isEmpty { return state.failures.removeFirst() }
            return state.failing
        }
        if let error { throw error }
    }

    static func spot(of name: String) -> Coordinate {
        let hash = name.lowercased().unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) % 10_000 }
        return Coordinate(lat: Double(hash % 80), lon: Double(hash % 170))
    }

    func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        try call(.places(query.name))
        if query.name.lowercased() == "atlantis" { return [] }
        return [Place(name: query.name, country: query.country, coordinate: Self.spot(of: query.name), provider: provider.rawValue,
                      geonamesID: provider == .openMeteo ? 1000 + Int(Self.spot(of: query.name).lat) : nil)]
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
        return coordinates.map(observation(at:))
    }

    func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        try call(.forecast(coordinate))
        return WeatherForecast(place: observation(at: coordinate), steps: [], step: provider == .openMeteo ? ForecastStep.oneHour : ForecastStep.threeHours)
    }
}
