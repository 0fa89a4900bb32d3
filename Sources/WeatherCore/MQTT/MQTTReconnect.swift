/// What the MQTT publisher does after a connection to the broker ended, as a plain value: events in
/// (a session ended, the wait before the next one ended), what to do out.
///
/// A broker that refuses MQTT 5 is asked again at once with MQTT 3.1.1. Otherwise the next attempt
/// waits (``ReconnectBackoff``, shared with gpsd's reader): a connection that lasted
/// ``stableConnection`` starts again from the first wait; one lost sooner (two devices with one
/// client id take the session from each other) lets the wait grow, as a refused attempt does.
public struct MQTTReconnect: Sendable, Equatable {
    public static let maxBackoff = Duration.seconds(30)
    /// A connection up this long resets the backoff.
    public static let stableConnection = Duration.seconds(30)

    /// How the connection ended, for the log.
    public enum Loss: Sendable, Equatable {
        /// It lasted; reconnecting after the first wait.
        case lostAfterLasting
        /// Lost this soon after the broker accepted it.
        case lostSoon(upFor: Duration)
        /// No connection; `first` of a row of failed attempts (logged as a warning once).
        case cannotConnect(first: Bool)
    }

    public enum Next: Sendable, Equatable {
        /// Connect again at once, with MQTT 3.1.1.
        case retryWithVersion311
        /// Wait `wait`, then connect again.
        case wait(Duration, Loss)
    }

    public private(set) var backoff = ReconnectBackoff(maximum: maxBackoff)
    /// Whether the next attempt speaks MQTT 5.
    public private(set) var version5 = true
    private var reportedDown = false
    private var lastLasted = false

    public init() {}

    /// A session ended: it was up `upFor` after the broker accepted it (nil: never accepted);
    /// `refusedVersion`: the broker refused the protocol version.
    public mutating func ended(upFor: Duration?, refusedVersion: Bool) -> Next {
        if refusedVersion, version5 {
            version5 = false
            return .retryWithVersion311
        }
        let loss: Loss
        lastLasted = upFor.map { $0 >= Self.stableConnection } ?? false
        if let upFor {
            if lastLasted { backoff.reset() }
            loss = lastLasted ? .lostAfterLasting : .lostSoon(upFor: upFor)
            reportedDown = false
        } else {
            loss = .cannotConnect(first: !reportedDown)
            reportedDown = true
        }
        return .wait(backoff.current, loss)
    }

    /// The wait ended: the next one grows unless the connection before it lasted.
    public mutating func waited() {
        if !lastLasted { backoff.lengthen() }
    }
}
