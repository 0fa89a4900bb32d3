import ServiceLifecycle
import WeatherCore

/// Sends the engine's held `state` notifications (a `gps.last_fix` change alone, at most one a
/// second) when they are due; it stops at graceful shutdown.
struct HeldNoticesService: Service, CustomStringConvertible {
    let engine: SearchEngine
    var description: String { "HeldNotices" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await engine.runHeldNotices() }
    }
}
