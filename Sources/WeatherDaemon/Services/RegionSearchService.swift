import ServiceLifecycle
import WeatherCore

/// Runs the debounced region searches as a service.
struct RegionSearchService: Service, CustomStringConvertible {
    let regions: RegionSearches
    var description: String { "RegionSearches" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await regions.run() }
    }
}
