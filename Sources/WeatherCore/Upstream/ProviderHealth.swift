#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One provider's budget and health as the lookups keep it: the requests sent to it (per minute and
/// per day, one per point asked), a block after a 429, and a backoff while it fails. A plain value:
/// each event takes the time, and the lookups act on what it answers.
///
/// A failing provider (an error other than `not_found`) is asked after the usable ones, for a backoff
/// that doubles with each failure in a row, from ``firstBackoff`` to ``maxBackoff``: while another
/// answers it is left alone, but a lookup never ends in an error before it was asked (``plan(_:health:now:)``).
/// The first lookup after its backoff asks it first again, and one answer makes it healthy. A block
/// (429), a spent budget or a missing key is never overridden: nothing is sent until it ends.
struct ProviderHealth: Sendable {
    /// Where a provider stands for the next lookup.
    enum Standing: Sendable, Equatable, Comparable {
        /// A key, no block, budget left, not backing off: asked in its turn.
        case usable
        /// Only backing off after a failure: asked when every usable provider failed.
        case backingOff
        /// No key, a 429's block or a spent budget: nothing is sent to it.
        case refused
    }

    struct Limits: Sendable, Equatable {
        var requestsPerMinute: Int
        /// nil: no daily limit.
        var requestsPerDay: Int?
    }

    /// Why a request is not sent now, and when it could be.
    struct Refusal: Sendable, Equatable {
        enum Reason: Sendable, Equatable {
            case noKey
            /// A 429 answered; the provider asked to wait.
            case blocked
            case minuteBudget(Int)
            case dayBudget(Int)
        }

        var reason: Reason
        /// How long until the request could be sent (nil: not before a key is given).
        var retryAfter: Duration?
    }

    static let firstBackoff = Duration.seconds(10)
    static let maxBackoff = Duration.seconds(300)
    static let minute = Duration.seconds(60)
    static let day = Duration.seconds(86_400)
    static let defaultRetryAfter = Duration.seconds(60)

    var limits: Limits
    var hasKey: Bool
    /// The requests of the last minute: (when, how many points), oldest first.
    private var sentMinute: [(start: DaemonClock.Instant, count: Int)] = []
    /// The requests of the last day, counted per minute: (start of the minute's bucket, count), oldest first.
    private var sentDay: [(start: DaemonClock.Instant, count: Int)] = []
    private var blockedUntil: DaemonClock.Instant?
    private var blockedUntilWall: Date?
    /// Failures in a row, and when the provider is tried again after the last one.
    private(set) var failures = 0
    private var retryAt: DaemonClock.Instant?
    private var lastError: String?

    init(limits: Limits, hasKey: Bool) {
        self.limits = limits
        self.hasKey = hasKey
    }

    // MARK: Events

    /// Counts `count` requests (points) sent now, or refuses them.
    mutating func admit(_ count: Int = 1, now: DaemonClock.Instant) -> Refusal? {
        prune(now: now)
        if let refusal = refusal(count, now: now) { return refusal }
        return admitBudget(count, now: now)
    }

    /// Counts `count` requests of another of the provider's APIs (Open-Meteo's air quality) against
    /// its budget alone, or refuses them when the budget is spent: neither its key nor a 429 of its
    /// weather API holds them back.
    mutating func admitBudget(_ count: Int, now: DaemonClock.Instant) -> Refusal? {
        prune(now: now)
        if let refusal = budgetRefusal(count, now: now) { return refusal }
        sentMinute.append((now, count))
        if let last = sentDay.last, now < last.start.advanced(by: Self.minute) {
            sentDay[sentDay.count - 1].count += count
        } else {
            sentDay.append((now, count))
        }
        return nil
    }

    /// Why `count` requests could not be sent now; nil when they could.
    func refusal(_ count: Int = 1, now: DaemonClock.Instant) -> Refusal? {
        guard hasKey else { return Refusal(reason: .noKey, retryAfter: nil) }
        if let blockedUntil, now < blockedUntil {
            return Refusal(reason: .blocked, retryAfter: now.duration(to: blockedUntil))
        }
        return budgetRefusal(count, now: now)
    }

    /// Why `count` more requests would exceed the budget now; nil when they would not.
    func budgetRefusal(_ count: Int = 1, now: DaemonClock.Instant) -> Refusal? {
        let minuteUsed = used(in: sentMinute, window: Self.minute, now: now)
        if minuteUsed.count + count > limits.requestsPerMinute {
            return Refusal(reason: .minuteBudget(limits.requestsPerMinute), retryAfter: minuteUsed.freesIn)
        }
        if let perDay = limits.requestsPerDay {
            let dayUsed = used(in: sentDay, window: Self.day, now: now)
            if dayUsed.count + count > perDay {
                return Refusal(reason: .dayBudget(perDay), retryAfter: dayUsed.freesIn)
            }
        }
        return nil
    }

    /// The provider answered: it is healthy.
    mutating func succeeded() {
        failures = 0
        retryAt = nil
        lastError = nil
    }

    /// The provider failed with `error` (not `not_found`): a 429 blocks it for `Retry-After` (60 s
    /// without); anything else starts or lengthens its backoff.
    mutating func failed(_ error: UpstreamError, message: String, now: DaemonClock.Instant, wallNow: Date) {
        lastError = message
        if case .rateLimited(let retryAfter) = error {
            let wait = retryAfter ?? Self.defaultRetryAfter
            blockedUntil = now.advanced(by: wait)
            blockedUntilWall = wallNow.addingTimeInterval(wait.timeInterval)
            return
        }
        failures += 1
        retryAt = now.advanced(by: backoff)
    }

    /// Forgets the requests, the block and the failures older than `now` allows (and prunes).
    mutating func prune(now: DaemonClock.Instant) {
        let minuteStart = now.advanced(by: .zero - Self.minute)
        sentMinute.removeFirst(sentMinute.prefix { $0.start <= minuteStart }.count)
        let dayStart = now.advanced(by: .zero - Self.day)
        sentDay.removeFirst(sentDay.prefix { $0.start <= dayStart }.count)
        if let blockedUntil, now >= blockedUntil {
            self.blockedUntil = nil
            blockedUntilWall = nil
        }
    }

    // MARK: Reading

    /// The backoff after the failures so far: doubling from ``firstBackoff``, at most ``maxBackoff``.
    var backoff: Duration {
        guard failures > 0 else { return .zero }
        var wait = Self.firstBackoff
        for _ in 1..<min(failures, 16) where wait < Self.maxBackoff { wait = wait * 2 }
        return min(wait, Self.maxBackoff)
    }

    /// Failing, and its backoff not over.
    func isBackingOff(now: DaemonClock.Instant) -> Bool {
        retryAt.map { now < $0 } ?? false
    }

    /// Whether a lookup goes to it now: a key, no block, budget left, not backing off.
    func isUsable(now: DaemonClock.Instant) -> Bool {
        standing(now: now) == .usable
    }

    func standing(now: DaemonClock.Instant) -> Standing {
        if refusal(now: now) != nil { return .refused }
        return isBackingOff(now: now) ? .backingOff : .usable
    }

    /// The order in which a lookup asks `providers` (the order of preference): the usable ones, then
    /// those only backing off, then those that refuse, each group in the order of preference. A
    /// lookup goes down this list until one answers, so it never fails while a provider that is only
    /// backing off has not been asked; a refusing one is last, and its refusal only tells the
    /// requester when to retry when none could be asked.
    static func plan(
        _ providers: [WeatherProviderName], health: [WeatherProviderName: ProviderHealth], now: DaemonClock.Instant
    ) -> [WeatherProviderName] {
        let standings = providers.map { health[$0]?.standing(now: now) ?? .usable }
        return zip(providers, standings).enumerated()
            .sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }
            .map(\.element.0)
    }

    /// The next moment its usability changes by itself (a block, a budget window or a backoff ends).
    func nextChange(now: DaemonClock.Instant) -> DaemonClock.Instant? {
        var moments: [DaemonClock.Instant] = []
        if let retryAfter = refusal(now: now)?.retryAfter { moments.append(now.advanced(by: retryAfter)) }
        if let retryAt, now < retryAt { moments.append(retryAt) }
        return moments.min()
    }

    /// `state.providers`' entry.
    func status(_ name: WeatherProviderName, now: DaemonClock.Instant, wallNow: Date) -> ProviderStatus {
        let summary = summary(now: now, wallNow: wallNow)
        return ProviderStatus(
            name: name, usable: summary.usable,
            usedMinute: used(in: sentMinute, window: Self.minute, now: now).count,
            usedDay: used(in: sentDay, window: Self.day, now: now).count, blockedUntil: summary.blockedUntil, error: summary.error)
    }

    /// Whether it is usable, the end of a block or spent budget, and why it is not usable: what
    /// `state.providers` and `state.services` show.
    func summary(now: DaemonClock.Instant, wallNow: Date) -> (usable: Bool, blockedUntil: Date?, error: String?) {
        let refusal = refusal(now: now)
        var blockedUntil: Date?
        var error: String?
        switch refusal?.reason {
        case .noKey?: error = "no API key"
        case .blocked?:
            blockedUntil = blockedUntilWall
            error = lastError
        case .minuteBudget(let limit)?, .dayBudget(let limit)?:
            blockedUntil = refusal?.retryAfter.map { wallNow.addingTimeInterval($0.timeInterval) }
            error = "request budget of \(limit) \(refusal?.reason == .minuteBudget(limit) ? "a minute" : "a day") is spent"
        case nil:
            error = isBackingOff(now: now) ? lastError : nil
        }
        return (refusal == nil && !isBackingOff(now: now), blockedUntil, error)
    }

    /// The requests of `window` before `now`, and how long until the oldest of them leaves it.
    private func used(
        in sent: [(start: DaemonClock.Instant, count: Int)], window: Duration, now: DaemonClock.Instant
    ) -> (count: Int, freesIn: Duration?) {
        let windowStart = now.advanced(by: .zero - window)
        var count = 0
        var oldest: DaemonClock.Instant?
        for entry in sent where entry.start > windowStart {
            count += entry.count
            if oldest == nil { oldest = entry.start }
        }
        return (count, oldest.map { now.duration(to: $0.advanced(by: window)) })
    }
}
