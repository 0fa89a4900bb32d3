import ServiceLifecycle
import WeatherCore

/// Drops the fused location when it gets `location.max_age` old, as a service.
struct LocationExpiryService: Service, CustomStringConvertible {
    let location: LocationService
    var description: String { "LocationExpiry" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await location.runExpiry() }
    }
}
