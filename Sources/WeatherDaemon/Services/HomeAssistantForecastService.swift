import ServiceLifecycle
import WeatherCore

/// Keeps the watched cities' forecasts for Home Assistant on the broker, as a service; it stops at
/// graceful shutdown.
struct HomeAssistantForecastService: Service, CustomStringConvertible {
    let refresher: HomeAssistantForecastRefresher
    let engine: SearchEngine
    var description: String { "HomeAssistantForecasts" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await refresher.run(engine: engine) }
        } catch is CancellationError {
            // Shutting down.
        }
    }
}
