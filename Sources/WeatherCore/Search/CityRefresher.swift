/// Runs the watched-city rounds: one at start, then one every `refresh`, and one at once when a
/// reload changed the cities or made the fetched weather wrong (units, language, provider). It is the
/// only runner of rounds, so two rounds never run side by side.
public actor CityRefresher: Reconfigurable {
    private let engine: SearchEngine
    private let clock: DaemonClock
    private var interval: Duration
    /// A reload asked for a round before the interval is up.
    private var roundDue = false
    private let wakeup = Wakeup()

    public init(engine: SearchEngine, clock: DaemonClock, refresh: Duration) {
        self.engine = engine
        self.clock = clock
        self.interval = refresh
    }

    /// Runs rounds until cancelled.
    public func run() async throws {
        while true {
            try Task.checkCancellation()
            roundDue = false
            let started = clock.now
            await engine.refreshCities()
            // The deadline is measured again after every wake-up, so a new interval applies at once.
            while !roundDue {
                guard try await wakeup.sleep(until: started.advanced(by: interval), on: clock) else { break }
            }
        }
    }

    /// The machine woke from suspend: a round at once (after the one running, if any).
    public func resume() {
        roundDue = true
        wakeup.wake()
    }

    /// A new `refresh` applies to the wait under way; new `cities`, or weather fetched in other units,
    /// language or from another provider, start a round at once (after the one running, if any).
    public func apply(_ change: ConfigChange) {
        interval = change.new.refresh
        if change.changed("cities") || change.invalidatesWeather { roundDue = true }
        if change.changed("refresh") || roundDue { wakeup.wake() }
    }
}
