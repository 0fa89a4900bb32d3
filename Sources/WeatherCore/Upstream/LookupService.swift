import Foundation
import Logging

/// Answers weather and forecast lookups through a cache, shares identical lookups in flight, and
/// keeps to the request budget and to OpenWeatherMap's `Retry-After`.
///
/// Every input of the search stream (watched cities, searches, locations, region grids) and every
/// `forecast` request goes through one `LookupService`, so the budget and the cache are shared by
/// all of them. Weather and forecasts are cached and shared apart (each kind has its own table).
public actor LookupService {
    /// The limits an operator sets (`weather.cache_ttl`, `openweathermap.requests_per_minute`).
    public struct Limits: Sendable, Equatable {
        public var cacheTTL: Duration
        public var requestsPerMinute: Int

        public init(cacheTTL: Duration, requestsPerMinute: Int) {
            self.cacheTTL = cacheTTL
            self.requestsPerMinute = requestsPerMinute
        }

        /// The limits of the configuration.
        public init(_ config: DaemonConfig) {
            self.init(cacheTTL: config.weather.cacheTTL, requestsPerMinute: config.openWeatherMap.requestsPerMinute)
        }
    }

    private struct CacheEntry<Answer> {
        var answer: Answer
        var expires: DaemonClock.Instant
    }

    /// The cache and the lookups in flight of one kind of answer. Owned by the actor (never leaves
    /// it); a class so that one generic lookup loop reads and writes either kind's table across its
    /// suspensions.
    ///
    /// Each kind keeps its own typed table on purpose: with one table holding an enum of both
    /// answers (weather or forecast), the static release build (Swift 6.3.1, -O) corrupted the task
    /// memory of the lookups: weatherd died with SIGILL in `SearchEngine.runLookups` right after
    /// start and during reloads (the debug build did not). No unsafe code of ours was involved.
    private final class Table<Answer: Sendable> {
        var cache: [LookupKey: CacheEntry<Answer>] = [:]
        var flights: [LookupKey: LookupFlight<Answer>] = [:]

        /// Every cached answer expires `suspended` sooner; those already expired at `now` go.
        func age(by suspended: Duration, now: DaemonClock.Instant) {
            for (key, entry) in cache {
                let expires = entry.expires.advanced(by: .zero - suspended)
                cache[key] = now < expires ? CacheEntry(answer: entry.answer, expires: expires) : nil
            }
        }
    }

    private let upstream: any WeatherUpstream
    private let clock: DaemonClock
    private let logger: Logger
    private var limits: Limits
    private let weather = Table<WeatherObservation>()
    private let forecasts = Table<WeatherForecast>()
    /// When each request of the last minute was sent, oldest first.
    private var sent: [DaemonClock.Instant] = []
    private var blockedUntil: DaemonClock.Instant?
    /// `blockedUntil` on the wall clock, for `state.budget`.
    private var blockedUntilWall: Date?
    private let wallClock: @Sendable () -> Date
    /// Woken when a 429 block starts (the budget watcher then waits for its end).
    public nonisolated let blockStarts = Wakeup()

    /// Each cache (weather, forecasts) holds at most this many entries; expired ones go first, then the oldest.
    static let maxCacheEntries = 4096
    static let budgetWindow = Duration.seconds(60)
    static let defaultRetryAfter = Duration.seconds(60)

    public init(
        upstream: any WeatherUpstream, limits: Limits, clock: DaemonClock, wallClock: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.wallClock = wallClock
        self.upstream = upstream
        self.limits = limits
        self.clock = clock
        self.logger = logger
    }

    /// Applies new limits (configuration reload); cached answers stay.
    public func update(limits: Limits) {
        self.limits = limits
    }

    /// The machine was suspended for `suspended` (which the clock did not count): cached answers
    /// age by it, so none older than `cache_ttl` in wall time is served.
    public func resumed(after suspended: Duration) {
        let now = clock.now
        weather.age(by: suspended, now: now)
        forecasts.age(by: suspended, now: now)
    }

    /// Forgets every cached answer (after the units or the language changed).
    public func clearCache() {
        weather.cache.removeAll()
        forecasts.cache.removeAll()
    }

    /// `state.budget` now.
    public var budget: BudgetStatus {
        let now = clock.now
        pruneBudget(now: now)
        let blocked = blockedUntil.map { now < $0 } ?? false
        return BudgetStatus(requestsPerMinute: limits.requestsPerMinute, used: sent.count, blockedUntil: blocked ? blockedUntilWall : nil)
    }

    /// When the current 429 block ends, on the daemon's clock; nil when none holds.
    public var blockEnd: DaemonClock.Instant? {
        guard let blockedUntil, clock.now < blockedUntil else { return nil }
        return blockedUntil
    }

    /// HTTP requests sent in the last minute.
    public var requestsInLastMinute: Int {
        pruneBudget(now: clock.now)
        return sent.count
    }

    /// The weather for `query`: from the cache, from an identical lookup in flight, or upstream.
    /// - Throws: `WeatherError` (not_found, unauthorized, rate_limited, upstream_unavailable) or
    ///   `CancellationError`.
    public func lookup(_ query: LookupQuery) async throws -> WeatherObservation {
        try await answer(query, kind: .weather, table: weather) { upstream, query in try await upstream.fetch(query) }
    }

    /// The 5 day / 3 hour forecast for `query`, like `lookup`: cached, shared in flight, within the
    /// same request budget.
    /// - Throws: `WeatherError` or `CancellationError`, as `lookup`.
    public func forecast(_ query: LookupQuery) async throws -> WeatherForecast {
        try await answer(query, kind: .forecast, table: forecasts) { upstream, query in
            try await upstream.fetchForecast(query)
        }
    }

    /// The answer of `kind` for `query` from `table`'s cache, from an identical lookup in flight,
    /// or from `fetch` (within the budget).
    private func answer<Answer: Sendable>(
        _ query: LookupQuery, kind: LookupKind, table: Table<Answer>,
        fetch: (any WeatherUpstream, LookupQuery) async throws -> Answer
    ) async throws -> Answer {
        let key = query.key
        while true {
            try Task.checkCancellation()
            let now = clock.now
            if let entry = table.cache[key] {
                if now < entry.expires {
                    UpstreamMetrics.lookup(.cache)
                    return entry.answer
                }
                table.cache[key] = nil
            }
            if let flight = table.flights[key] {
                switch await flight.wait() {
                case .success(let answer):
                    UpstreamMetrics.lookup(.shared)
                    return answer
                case .failure(let error): throw error
                case .retry: continue
                }
            }
            return try await lead(query, key: key, kind: kind, table: table, now: now, fetch: fetch)
        }
    }

    private func lead<Answer: Sendable>(
        _ query: LookupQuery, key: LookupKey, kind: LookupKind, table: Table<Answer>, now: DaemonClock.Instant,
        fetch: (any WeatherUpstream, LookupQuery) async throws -> Answer
    ) async throws -> Answer {
        try admit(now: now)
        UpstreamMetrics.lookup(.upstream)
        table.flights[key] = LookupFlight()
        let outcome: LookupFlight<Answer>.Outcome
        var thrown: (any Error)?
        do {
            let answer = try await fetch(upstream, query)
            outcome = .success(answer)
            store(answer, for: key, in: table)
        } catch let error as UpstreamError {
            let weatherError = weatherError(for: error, query: query, kind: kind)
            outcome = .failure(weatherError)
            thrown = weatherError
        } catch {
            outcome = .retry  // cancelled: a waiter, if any, tries again
            thrown = error
        }
        table.flights.removeValue(forKey: key)?.end(outcome)
        if let thrown { throw thrown }
        guard case .success(let answer) = outcome else { preconditionFailure() }
        return answer
    }

    /// Counts one request against the budget, or throws rate_limited.
    private func admit(now: DaemonClock.Instant) throws {
        if let blockedUntil, now < blockedUntil {
            let wait = now.duration(to: blockedUntil).secondsRoundedUp
            throw WeatherError(
                .rateLimited, "OpenWeatherMap asked to wait; retry in \(wait) s",
                details: ["retry_after": .integer(Int64(wait))])
        }
        blockedUntil = nil
        pruneBudget(now: now)
        if sent.count >= limits.requestsPerMinute {
            let wait = now.duration(to: sent[0].advanced(by: Self.budgetWindow)).secondsRoundedUp
            throw WeatherError(
                .rateLimited,
                "request budget of \(limits.requestsPerMinute) per minute is spent; retry in \(wait) s",
                details: ["retry_after": .integer(Int64(wait))])
        }
        sent.append(now)
    }

    private func pruneBudget(now: DaemonClock.Instant) {
        let windowStart = now.advanced(by: .zero - Self.budgetWindow)
        if let firstKept = sent.firstIndex(where: { $0 > windowStart }) {
            sent.removeFirst(firstKept)
        } else {
            sent.removeAll()
        }
    }

    private func store<Answer>(_ answer: Answer, for key: LookupKey, in table: Table<Answer>) {
        guard limits.cacheTTL > .zero else { return }
        let now = clock.now
        if table.cache.count >= Self.maxCacheEntries {
            table.cache = table.cache.filter { now < $0.value.expires }
            if table.cache.count >= Self.maxCacheEntries,
               let oldest = table.cache.min(by: { $0.value.expires < $1.value.expires })?.key {
                table.cache[oldest] = nil
            }
        }
        table.cache[key] = CacheEntry(answer: answer, expires: now.advanced(by: limits.cacheTTL))
    }

    private func weatherError(for error: UpstreamError, query: LookupQuery, kind: LookupKind) -> WeatherError {
        switch error {
        case .notFound:
            switch query {
            case .city(let name): return .notFound(name)
            case .coordinate(let c): return WeatherError(.notFound, "no \(kind == .forecast ? "forecast" : "weather") known at \(c)")
            }
        case .unauthorized:
            logger.error("OpenWeatherMap rejected the API key (HTTP 401); check the key's source and that it is active")
            return WeatherError(.unauthorized, "OpenWeatherMap rejected the API key")
        case .rateLimited(let retryAfter):
            let wait = retryAfter ?? Self.defaultRetryAfter
            blockedUntil = clock.now.advanced(by: wait)
            blockedUntilWall = wallClock().addingTimeInterval(Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
            blockStarts.wake()
            logger.warning("OpenWeatherMap answered 429; no request for \(wait.secondsRoundedUp) s")
            return WeatherError(
                .rateLimited, "OpenWeatherMap rate limit reached; retry in \(wait.secondsRoundedUp) s",
                details: ["retry_after": .integer(Int64(wait.secondsRoundedUp))])
        case .unavailable(let message):
            logger.warning("OpenWeatherMap \(kind == .forecast ? "forecast" : "lookup") of \(query) failed: \(message)")
            return WeatherError(.upstreamUnavailable, "OpenWeatherMap is unavailable: \(message)")
        }
    }
}

extension LookupService: Reconfigurable {
    /// New limits apply at once (cached answers stay); after a change that makes fetched weather
    /// wrong (units, language, provider) every cached answer is dropped.
    public func apply(_ change: ConfigChange) {
        update(limits: Limits(change.new))
        if change.invalidatesWeather { clearCache() }
    }
}
