/// The clock every timed part of the core runs on: debounce, refresh, cache expiry, the request
/// budget and timeouts. The daemon wraps its own clock, the boot-time clock with sleeps on an event
/// loop's timers (`EventLoopClock`: a sleep on Swift's clocks would start libdispatch's monitor, which
/// wakes the process every second); tests wrap a manual clock and advance it, so timing is tested
/// without sleeping.
public struct DaemonClock: Clock {
    /// A point in time, as an offset from when the clock was made.
    public struct Instant: InstantProtocol, Hashable {
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let currentOffset: @Sendable () -> Duration
    private let sleepUntilOffset: @Sendable (Duration, Duration?) async throws -> Void
    public let minimumResolution: Duration

    /// Wraps any clock that measures in `Duration`.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        currentOffset = { origin.duration(to: clock.now) }
        sleepUntilOffset = { offset, tolerance in
            try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance)
        }
        minimumResolution = clock.minimumResolution
    }

    /// The system's monotonic clock.
    public static var continuous: DaemonClock { DaemonClock(ContinuousClock()) }

    public var now: Instant { Instant(offset: currentOffset()) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepUntilOffset(deadline.offset, tolerance)
    }
}

extension Duration {
    /// Whole seconds, rounded up (for `Retry-After`-style hints).
    public var secondsRoundedUp: Int {
        let (s, attos) = components
        return Int(s) + (attos > 0 ? 1 : 0)
    }

    /// In seconds, as Foundation's `TimeInterval` (to move a wall-clock `Date` by it).
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// In whole milliseconds, rounded down (for log lines).
    public var wholeMilliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }
}
