import ServiceLifecycle
import WeatherCore

/// Sends the engine's held `state` notifications (a `gps.last_fix` change alone, at most one every
/// 10 s, or a second while it moves: `LocationNoticeState`) when they are due; it stops at graceful
/// shutdown.
struct HeldNoticesService: Service, CustomStringConvertible {
    let engine: SearchEngine
    var description: String { "HeldNotices" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await engine.runHeldNotices() }
    }
}
