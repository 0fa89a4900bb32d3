import ServiceLifecycle
import WeatherCore

/// Runs the follow-mode searches as a service.
struct FollowService: Service, CustomStringConvertible {
    let location: LocationService
    var description: String { "FollowSearches" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await location.runFollow() }
    }
}
