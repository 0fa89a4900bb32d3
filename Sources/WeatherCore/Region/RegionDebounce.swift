/// The debounce of region events, a plain state machine: an event is due once `interval` has
/// passed without a newer one; a newer event replaces it and starts the interval again. Only the
/// last of a burst is ever due. (A map being dragged sends an event per frame; its grid is searched
/// once the map rests.)
struct RegionDebounce<Event> {
    /// How long an event waits for a newer one; a change applies to the events taken after it.
    var interval: Duration
    private var pending: (event: Event, due: DaemonClock.Instant)?

    init(interval: Duration) {
        self.interval = interval
    }

    /// When the pending event is due; nil when there is none.
    var due: DaemonClock.Instant? { pending?.due }

    /// An event arrived at `now`: it replaces any pending one and is due `interval` later.
    mutating func take(_ event: Event, at now: DaemonClock.Instant) {
        pending = (event, now.advanced(by: interval))
    }

    /// The pending event, if it is due at `now` (it is then no longer pending).
    mutating func takeDue(at now: DaemonClock.Instant) -> Event? {
        guard let pending, now >= pending.due else { return nil }
        self.pending = nil
        return pending.event
    }
}
