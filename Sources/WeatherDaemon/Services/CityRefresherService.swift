import ServiceLifecycle
import WeatherCore

/// Runs the watched-city rounds as a service; it stops at graceful shutdown.
struct CityRefresherService: Service, CustomStringConvertible {
    let refresher: CityRefresher
    var description: String { "CityRefresher" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await refresher.run() }
        } catch is CancellationError {
            // Shutting down.
        }
    }
}
