import ServiceLifecycle
import WeatherCore

/// Runs the budget watcher (the end of a 429 block in `state.budget`); it stops at graceful shutdown.
struct BudgetWatcherService: Service, CustomStringConvertible {
    let watcher: BudgetWatcher
    var description: String { "BudgetWatcher" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await watcher.run() }
    }
}
