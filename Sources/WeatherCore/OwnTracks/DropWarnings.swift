/// When a dropped payload is worth a warning: the first of each source, then at most one per
/// `interval`, saying how many were dropped quietly since. A plain state machine, time injected.
public struct DropWarnings<Source: Hashable & Sendable>: Sendable {
    public enum Decision: Sendable, Equatable {
        /// Warn now; `suppressed` were dropped without a warning since the last one.
        case warn(suppressed: Int)
        /// Count it, say nothing.
        case quiet
    }

    public var interval: Duration
    private var lastWarned: [Source: DaemonClock.Instant] = [:]
    private var suppressed: [Source: Int] = [:]

    public init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// A payload of `source` was dropped at `now`.
    public mutating func dropped(from source: Source, now: DaemonClock.Instant) -> Decision {
        if let last = lastWarned[source], now < last.advanced(by: interval) {
            suppressed[source, default: 0] += 1
            return .quiet
        }
        lastWarned[source] = now
        return .warn(suppressed: suppressed.removeValue(forKey: source) ?? 0)
    }
}
