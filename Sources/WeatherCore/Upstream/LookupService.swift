import Foundation
import Logging

/// Answers weather and forecast lookups through a cache, shares identical lookups in flight, and
/// keeps to the request budget and to OpenWeatherMap's `Retry-After`.
///
/// Every input of the search stream (watched cities, searches, locations, region grids) and every
/// `forecast` request goes through one `LookupService`, so the budget and the cache are shared by
/// all of them. Weather and forecasts are cached and shared apart (their keys carry a `LookupKind`).
public actor LookupService {
    /// The limits an operator sets (`openweathermap.cache_ttl`, `requests_per_minute`).
    public struct Limits: Sendable, Equatable {
        public var cacheTTL: Duration
        public var requestsPerMinute: Int

        public init(cacheTTL: Duration, requestsPerMinute: Int) {
            self.cacheTTL = cacheTTL
            self.requestsPerMinute = requestsPerMinute
        }

        /// The limits of the `[openweathermap]` table.
        public init(_ config: OpenWeatherMapConfig) {
            self.init(cacheTTL: config.cacheTTL, requestsPerMinute: config.requestsPerMinute)
        }
    }

    private struct CacheEntry {
        var answer: LookupAnswer
        var expires: DaemonClock.Instant
    }

    /// The key of the cache and of the lookups in flight.
    private struct Key: Hashable {
        var kind: LookupKind
        var lookup: LookupKey
    }

    private let upstream: any WeatherUpstream
    private let clock: DaemonClock
    private let logger: Logger
    private var limits: Limits
    private var cache: [Key: CacheEntry] = [:]
    private var flights: [Key: LookupFlight] = [:]
    /// When each request of the last minute was sent, oldest first.
    private var sent: [DaemonClock.Instant] = []
    private var blockedUntil: DaemonClock.Instant?
    /// `blockedUntil` on the wall clock, for `state.budget`.
    private var blockedUntilWall: Date?
    private let wallClock: @Sendable () -> Date
    /// Woken when a 429 block starts (the budget watcher then waits for its end).
    public nonisolated let blockStarts = Wakeup()

    /// The cache holds at most this many entries; expired ones go first, then the oldest.
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
        for (key, entry) in cache {
            let expires = entry.expires.advanced(by: .zero - suspended)
            cache[key] = now < expires ? CacheEntry(answer: entry.answer, expires: expires) : nil
        }
    }

    /// Forgets every cached answer (after the units or the language changed).
    public func clearCache() {
        cache.removeAll()
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
        guard case .weather(let observation) = try await answer(query, kind: .weather) else {
            preconditionFailure("a weather lookup answered with a forecast")
        }
        return observation
    }

    /// The 5 day / 3 hour forecast for `query`, like `lookup`: cached, shared in flight, within the
    /// same request budget.
    /// - Throws: `WeatherError` or `CancellationError`, as `lookup`.
    public func forecast(_ query: LookupQuery) async throws -> WeatherForecast {
        guard case .forecast(let forecast) = try await answer(query, kind: .forecast) else {
            preconditionFailure("a forecast lookup answered with weather")
        }
        return forecast
    }

    private func answer(_ query: LookupQuery, kind: LookupKind) async throws -> LookupAnswer {
        let key = Key(kind: kind, lookup: query.key)
        while true {
            try Task.checkCancellation()
            let now = clock.now
            if let entry = cache[key] {
                if now < entry.expires {
                    UpstreamMetrics.lookup("cache")
                    return entry.answer
                }
                cache[key] = nil
            }
            if let flight = flights[key] {
                switch await flight.wait() {
                case .success(let answer):
                    UpstreamMetrics.lookup("shared")
                    return answer
                case .failure(let error): throw error
                case .retry: continue
                }
            }
            return try await lead(query, key: key, now: now)
        }
    }

    private func lead(_ query: LookupQuery, key: Key, now: DaemonClock.Instant) async throws -> LookupAnswer {
        try admit(now: now)
        UpstreamMetrics.lookup("upstream")
        flights[key] = LookupFlight()
        let outcome: LookupFlight.Outcome
        var thrown: (any Error)?
        do {
            let answer: LookupAnswer = switch key.kind {
            case .weather: .weather(try await upstream.fetch(query))
            case .forecast: .forecast(try await upstream.fetchForecast(query))
            }
            outcome = .success(answer)
            store(answer, for: key)
        } catch let error as UpstreamError {
            let weatherError = weatherError(for: error, query: query, kind: key.kind)
            outcome = .failure(weatherError)
            thrown = weatherError
        } catch {
            outcome = .retry  // cancelled: a waiter, if any, tries again
            thrown = error
        }
        flights.removeValue(forKey: key)?.end(outcome)
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

    private func store(_ answer: LookupAnswer, for key: Key) {
        guard limits.cacheTTL > .zero else { return }
        let now = clock.now
        if cache.count >= Self.maxCacheEntries {
            cache = cache.filter { now < $0.value.expires }
            if cache.count >= Self.maxCacheEntries,
               let oldest = cache.min(by: { $0.value.expires < $1.value.expires })?.key {
                cache[oldest] = nil
            }
        }
        cache[key] = CacheEntry(answer: answer, expires: now.advanced(by: limits.cacheTTL))
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
        update(limits: Limits(change.new.openWeatherMap))
        if change.invalidatesWeather { clearCache() }
    }
}
