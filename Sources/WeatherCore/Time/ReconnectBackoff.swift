/// The wait before connecting again, as a plain value, shared by every connection the daemon keeps
/// (gpsd, the MQTT broker): ``first`` (1 s), doubling after each attempt that did not last, at most
/// ``maximum``; back to the first after one that did (or for a new endpoint).
public struct ReconnectBackoff: Sendable, Equatable {
    public static let first = Duration.seconds(1)

    public let maximum: Duration
    /// The wait before the next attempt.
    public private(set) var current = first

    public init(maximum: Duration) {
        self.maximum = maximum
    }

    /// An attempt failed, or its connection did not last: the wait after the next one doubles.
    public mutating func lengthen() {
        current = min(current * 2, maximum)
    }

    /// A connection lasted, or the endpoint changed: the next wait is the first again.
    public mutating func reset() {
        current = Self.first
    }
}
