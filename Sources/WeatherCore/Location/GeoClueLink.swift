/// The decisions of weatherd's link to GeoClue, as a plain state machine: each event (an attempt
/// started the client, was refused, the client was lost, a backoff ended) returns what to do: a
/// line to log, the new `connected` of `location_sources`' geoclue entry, and what comes next.
///
/// A refusal is logged once: the same reason again (every retry of a misconfigured GeoClue) is
/// only a debug line, until the client started once or the reason changed. Retries wait out a
/// ``ReconnectBackoff`` (1 s doubling to ``maxBackoff``), reset when a client started.
public struct GeoClueLink: Sendable {
    public static let maxBackoff = Duration.seconds(30)

    public enum State: Sendable, Equatable {
        /// Not begun (GeoClue is disabled, or the service has not run yet).
        case idle
        /// An attempt is under way: connecting, registering the agent, starting the client.
        case connecting
        /// The client started; fixes come.
        case started
        /// Waiting out a backoff before the next attempt.
        case waiting
    }

    /// How loud a line is.
    public enum Level: Sendable, Equatable {
        case debug
        case notice
        case warning
    }

    /// What to do next.
    public enum Next: Sendable, Equatable {
        /// Connect and start a client.
        case connect
        /// Wait this long, then ``retry()``.
        case wait(Duration)
        /// Nothing: serve the started client until it ends.
        case serve
    }

    public struct Action: Sendable, Equatable {
        public var log: (level: Level, message: String)?
        /// The geoclue entry's new `connected`, or nil when it stays.
        public var connected: Bool?
        public var next: Next

        public init(log: (level: Level, message: String)? = nil, connected: Bool? = nil, next: Next) {
            self.log = log
            self.connected = connected
            self.next = next
        }

        public static func == (lhs: Action, rhs: Action) -> Bool {
            lhs.log?.level == rhs.log?.level && lhs.log?.message == rhs.log?.message && lhs.connected == rhs.connected
                && lhs.next == rhs.next
        }
    }

    public let desktopID: String
    public private(set) var state = State.idle
    public private(set) var backoff = ReconnectBackoff(maximum: maxBackoff)
    /// The reason logged last, not logged again until it changes or a client started.
    private var reported: GeoClueRefusal.Reason?

    public init(desktopID: String) {
        self.desktopID = desktopID
    }

    /// The service runs: the first attempt.
    public mutating func begin() -> Action {
        state = .connecting
        return Action(next: .connect)
    }

    /// The attempt started GeoClue's client.
    public mutating func started(accuracy: GeoClueAccuracy) -> Action {
        state = .started
        backoff.reset()
        reported = nil
        return Action(
            log: (.notice, "GeoClue: client started as \(desktopID), accuracy \(accuracy.rawValue)"), connected: true, next: .serve)
    }

    /// The attempt ended before the client started.
    public mutating func refused(_ refusal: GeoClueRefusal) -> Action {
        let wait = backoff.current
        backoff.lengthen()
        state = .waiting
        let line: (Level, String)
        if reported == refusal.reason {
            line = (.debug, "GeoClue still unusable (\(refusal.detail)); next try in \(wait)")
        } else {
            reported = refusal.reason
            line = (.warning, refusal.logLine(desktopID: desktopID))
        }
        return Action(log: line, connected: false, next: .wait(wait))
    }

    /// The started client ended: GeoClue left the bus, or the bus closed.
    public mutating func lost(_ detail: String) -> Action {
        guard state == .started else { return refused(GeoClueRefusal(.failed, detail)) }
        state = .waiting
        let wait = backoff.current
        backoff.lengthen()
        return Action(log: (.warning, "GeoClue: the client ended (\(detail)); reconnecting"), connected: false, next: .wait(wait))
    }

    /// The backoff ended: the next attempt.
    public mutating func retry() -> Action {
        state = .connecting
        return Action(next: .connect)
    }
}
