#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fused location: one rule for every source of location. Events in (a fix, a wake-up at an
/// expiry), decisions out; the time of each event is passed in, so it is tested event by event.
///
/// The fused location is the newest fix whose error is within its source's limit and whose age is
/// at most `max_age`, except that a newer fix of another kind of source does not replace a more
/// accurate one younger than `hold`; a kind's newer fix always replaces its own. A fix dated in the
/// future counts as taken now. When the fused fix reaches `max_age` (``expire(now:)`` at
/// ``nextExpiry``), the newest fix still younger than `max_age` of another kind takes its place, or
/// there is none.
public struct LocationFusion: Sendable {
    /// `[location]`'s rule, and each kind's limit.
    public struct Settings: Sendable, Equatable {
        /// The largest horizontal error (metres) a fix of each kind may have; a kind without one
        /// takes none.
        public var maxHorizontalError: [LocationSourceKind: Double]
        public var maxAge: Duration
        public var hold: Duration

        public init(maxHorizontalError: [LocationSourceKind: Double], maxAge: Duration, hold: Duration) {
            self.maxHorizontalError = maxHorizontalError
            self.maxAge = maxAge
            self.hold = hold
        }
    }

    /// Why a fix did not become the fused location (`location.report`'s `reason`).
    public enum Rejection: String, Sendable, Hashable {
        /// Its error is unknown or above its source's limit.
        case inaccurate
        /// Older than `max_age`, or older than the latest fix of its own kind or than the fused one.
        case tooOld = "too_old"
        /// A more accurate fix of another kind, younger than `hold`, stays the fused location.
        case held
    }

    /// What a fix came to.
    public enum Verdict: Sendable, Hashable {
        /// It is the fused location now.
        case accepted
        case rejected(Rejection)
    }

    /// What the caller does after an event.
    public struct Decision: Sendable, Hashable {
        /// The fix's verdict; nil for a wake-up.
        public var verdict: Verdict?
        /// Whether the fused location changed (publish it; answer waiting `locate`s when it is not nil).
        public var changed: Bool
        /// When to call ``LocationFusion/expire(now:)`` next; nil while there is no fused location.
        public var nextExpiry: Date?
    }

    public var settings: Settings
    /// The fused location; nil when no fix younger than `max_age` is known.
    public private(set) var location: LocationFix?
    /// Each kind's latest fix within its limit and `max_age` when it came: the candidates when the
    /// fused fix expires.
    public private(set) var latest: [LocationSourceKind: LocationFix] = [:]

    public init(settings: Settings) {
        self.settings = settings
    }

    /// When the fused fix reaches `max_age`.
    public var nextExpiry: Date? {
        location.map { $0.at.addingTimeInterval(Self.seconds(settings.maxAge)) }
    }

    /// A fix arrived at `now`.
    public mutating func receive(_ fix: LocationFix, now: Date) -> Decision {
        var fix = fix
        if fix.at > now { fix.at = now }  // a time in the future counts as now
        let kind = fix.source.kind
        guard let limit = settings.maxHorizontalError[kind], fix.horizontalError.isFinite, fix.horizontalError >= 0,
            fix.horizontalError <= limit
        else { return decision(.rejected(.inaccurate), changed: false) }
        guard age(of: fix, at: now) <= settings.maxAge else { return decision(.rejected(.tooOld), changed: false) }
        if let own = latest[kind], own.at > fix.at { return decision(.rejected(.tooOld), changed: false) }
        // Whatever expired before this fix came is gone first.
        let expired = dropExpired(now: now)
        latest[kind] = fix
        if let location, location.source.kind != kind {
            if location.at > fix.at { return decision(.rejected(.tooOld), changed: expired) }
            if location.horizontalError < fix.horizontalError, age(of: location, at: now) < settings.hold {
                return decision(.rejected(.held), changed: expired)
            }
        }
        let changed = location != fix
        location = fix
        return decision(.accepted, changed: changed || expired)
    }

    /// A wake-up at `now` (at ``nextExpiry``, or after new settings): a fused fix that reached
    /// `max_age` gives way to the newest fix of another kind still younger than it, or to none.
    public mutating func expire(now: Date) -> Decision {
        let changed = dropExpired(now: now)
        return decision(nil, changed: changed)
    }

    /// Forgets the fixes that reached `max_age`; when the fused one is among them, the newest of the
    /// others takes its place. Whether the fused location changed.
    private mutating func dropExpired(now: Date) -> Bool {
        latest = latest.filter { age(of: $0.value, at: now) < settings.maxAge }
        guard let location, age(of: location, at: now) >= settings.maxAge else { return false }
        self.location = latest.values.max { $0.at < $1.at }
        return true
    }

    private func decision(_ verdict: Verdict?, changed: Bool) -> Decision {
        Decision(verdict: verdict, changed: changed, nextExpiry: nextExpiry)
    }

    private func age(of fix: LocationFix, at now: Date) -> Duration {
        .seconds(now.timeIntervalSince(fix.at))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
