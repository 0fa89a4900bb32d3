/// When a `state` notification goes out for a change of the location alone (`gps.last_fix`): a plain
/// state machine, events in, actions out, time given with each event.
///
/// A receiver reports every second, mostly the same place at a new time: such a change is sent at
/// most once every ``quietInterval`` (10 s) after the last one, or every ``movingInterval`` (1 s)
/// when the location moved at least ``movedDistance`` (100 m) from the one last sent (by any
/// notification); the first goes out at once. A change held back is not lost:
/// the latest state goes out when its time comes (``due(now:)``), or sooner with any other change,
/// which is always sent at once and carries the location too. Every `state` publisher (the socket's
/// watchers, MQTT's `P/D/state`) gets what this lets through.
public struct LocationNoticeState: Sendable {
    /// The least time between notifications of the location alone while it stays (within 100 m).
    public static let quietInterval = Duration.seconds(10)
    /// The least time between notifications of the location alone while it moves.
    public static let movingInterval = Duration.seconds(1)
    /// Metres from the location last sent that count as moving.
    public static let movedDistance = 100.0

    /// What to do with the state after an event.
    public enum Action: Sendable, Equatable {
        /// Send the state now.
        case send
        /// Send nothing now; the latest state is due at `until` (ask ``due(now:)`` then).
        case hold(until: DaemonClock.Instant)
    }

    /// When the last notification of the location alone went out.
    private var lastNoticeAt: DaemonClock.Instant?
    /// The location the last notification of any kind carried (nil: none).
    private var lastSentLocation: Coordinate?
    /// The location of the change held back, if one is: `.some(nil)` when that change removed it.
    private var held: Coordinate??

    public init() {}

    /// When the held change is due; nil when none is held.
    public var heldUntil: DaemonClock.Instant? {
        guard case .some(let location) = held, let lastNoticeAt else { return nil }
        return lastNoticeAt.advanced(by: interval(to: location, from: lastSentLocation))
    }

    /// The state changed at `now`, its location now `location`; `locationOnly` when nothing else
    /// changed (the time of the change, the budget's and providers' counts aside).
    public mutating func changed(locationOnly: Bool, location: Coordinate?, now: DaemonClock.Instant) -> Action {
        guard locationOnly else {
            lastSentLocation = location
            held = nil
            return .send
        }
        guard let lastNoticeAt else { return sent(location, at: now) }
        let due = lastNoticeAt.advanced(by: interval(to: location, from: lastSentLocation))
        guard now < due else { return sent(location, at: now) }
        held = .some(location)
        return .hold(until: due)
    }

    /// The time of a held change may have come: `.send` (the latest state) when it has, `.hold`
    /// when not yet, nil when nothing is held.
    public mutating func due(now: DaemonClock.Instant) -> Action? {
        guard case .some(let location) = held, let until = heldUntil else { return nil }
        guard now >= until else { return .hold(until: until) }
        return sent(location, at: now)
    }

    /// A notification of the location alone goes out.
    private mutating func sent(_ location: Coordinate?, at now: DaemonClock.Instant) -> Action {
        lastNoticeAt = now
        lastSentLocation = location
        held = nil
        return .send
    }

    /// The least time from a notification carrying `last` to one carrying `location`.
    private func interval(to location: Coordinate?, from last: Coordinate?) -> Duration {
        let moved: Bool
        if let location, let last {
            moved = location.distance(to: last) >= Self.movedDistance
        } else {
            moved = (location == nil) != (last == nil)  // a location found or lost
        }
        return moved ? Self.movingInterval : Self.quietInterval
    }
}
