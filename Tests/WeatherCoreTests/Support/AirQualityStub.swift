import Synchronization

@testable import WeatherCore

/// An in-memory air quality API: the air anywhere is the same made-up reading (its index the
/// point's latitude), each request recorded with its points; requests can be made to fail.
final class AirQualityStub: AirQualityUpstream, Sendable {
    private struct State {
        var calls: [[Coordinate]] = []
        var failing: UpstreamError?
    }

    let provider = WeatherProviderName.openMeteo
    let maxPointsPerRequest = 50
    private let state = Mutex(State())

    /// Every request fails with `error` from now on (nil: none fails).
    func fail(with error: UpstreamError?) {
        state.withLock { $0.failing = error }
    }

    /// The points of each request so far, in order.
    var calls: [[Coordinate]] { state.withLock { $0.calls } }

    /// The reading at `coordinate`, saying `scale`.
    static func reading(at coordinate: Coordinate, scale: AirQualityScale? = nil) -> AirQuality {
        AirQuality(
            europeanAQI: coordinate.lat, usAQI: 2 * coordinate.lat, pm25: 10, pm10: 20, ozone: 30, nitrogenDioxide: 5, scale: scale)
    }

    func airQuality(at coordinates: [Coordinate]) async throws -> [AirQuality] {
        let failing = state.withLock { state in
            state.calls.append(coordinates)
            return state.failing
        }
        if let failing { throw failing }
        return coordinates.map { Self.reading(at: $0) }
    }
}
