/// Tells the engine when a provider's status changes (`state.budget` and `state.providers`): when a
/// lookup changed it (a failure, a 429, a recovery) and when a block, a spent budget or a backoff
/// ends by itself, so each change goes out with a notification at that moment. Sleeps on the
/// daemon's clock; no periodic wake-up.
public struct BudgetWatcher: Sendable {
    let lookups: LookupService
    let engine: SearchEngine
    let clock: DaemonClock

    public init(lookups: LookupService, engine: SearchEngine, clock: DaemonClock) {
        self.lookups = lookups
        self.engine = engine
        self.clock = clock
    }

    /// Runs until cancelled.
    public func run() async {
        await engine.refreshBudget()
        await lookups.statusChanges.actWhenDue(on: clock, due: { await lookups.nextStatusChange }) { await engine.refreshBudget() }
    }
}
