/// Tells the engine when a 429 block of the request budget ends, so `state.budget.blocked_until`
/// goes back to null with a notification at that moment (its start is noticed by the lookup that
/// got the 429). Sleeps on the daemon's clock; no periodic wake-up.
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
        while !Task.isCancelled {
            if let end = await lookups.blockEnd {
                guard (try? await clock.sleep(until: end)) != nil else { return }
            } else {
                guard await lookups.blockStarts.wait() else { return }
            }
            await engine.refreshBudget()
        }
    }
}
