import Foundation
import Logging

/// Answers weather and forecast lookups through a cache, shares identical lookups in flight, and
/// keeps to the request budget and to OpenWeatherMap's `Retry-After`.
///
/// Every input of the search stream (watched cities, searches, locations, region grids) and every
/// `forecast` request goes through one `LookupService`, so the budget and the cache are shared by
/// all of them. The places of names, weather and forecasts are cached and shared apart (each kind of
/// answer has its own table).
public actor LookupService {
    /// The limits an operator sets (`weather.cache_ttl`, `weather.geocode_ttl`, `openweathermap.requests_per_minute`).
    public struct Limits: Sendable, Equatable {
        public var cacheTTL: Duration
        /// How long the places of a name that was found are kept.
        public var geocodeTTL: Duration
        public var requestsPerMinute: Int

        public init(cacheTTL: Duration, geocodeTTL: Duration = .seconds(30 * 86400), requestsPerMinute: Int) {
            self.cacheTTL = cacheTTL
            self.geocodeTTL = geocodeTTL
            self.requestsPerMinute = requestsPerMinute
        }

        /// The limits of the configuration.
        public init(_ config: DaemonConfig) {
            self.init(cacheTTL: config.weather.cacheTTL, geocodeTTL: config.weather.geocodeTTL, requestsPerMinute: config.openWeatherMap.requestsPerMinute)
        }

        /// How long a name no geocoder knows stays unknown: briefly (no request storm for a typo),
        /// the weather's `cache_ttl`, and never longer than a found name's places.
        var notFoundTTL: Duration { min(cacheTTL, geocodeTTL) }
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
    private let placeStore: (any PlaceStore)?
    private let clock: DaemonClock
    private let logger: Logger
    private var limits: Limits
    private let weather = Table<WeatherObservation>()
    private let forecasts = Table<WeatherForecast>()
    /// The places of each name (by ``LookupKey/normalize(city:)``); an unknown name's empty list too.
    private let places = Table<[Place]>()
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

    /// The places a name's geocoding gives, at most: as many as a client may ask `places` for
    /// (OpenWeatherMap gives 5 at most).
    public static let placesPerName = Place.limitRange.upperBound

    /// - Parameter placeStore: where the places of found names are kept across restarts; its
    ///   entries are loaded here.
    public init(
        upstream: any WeatherUpstream, limits: Limits, placeStore: (any PlaceStore)? = nil, clock: DaemonClock,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.wallClock = wallClock
        self.upstream = upstream
        self.placeStore = placeStore
        self.limits = limits
        self.clock = clock
        self.logger = logger
        if let placeStore {
            let now = clock.now
            let wallNow = wallClock()
            for entry in placeStore.load().prefix(Self.maxCacheEntries) {
                let left = entry.expires.timeIntervalSince(wallNow)
                guard left > 0 else { continue }
                places.cache[.city(entry.name)] = CacheEntry(answer: entry.places, expires: now.advanced(by: .seconds(left)))
            }
        }
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
        places.age(by: suspended, now: now)
    }

    /// Forgets every cached weather answer and forecast (after the units or the language changed);
    /// the places of names stay.
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

    /// The weather for `query`: from the cache, from an identical lookup in flight, or upstream. A
    /// name is resolved to places first (``places(named:limit:)``) and its first place looked up by
    /// its coordinates; the observation is named after that place.
    /// - Throws: `WeatherError` (not_found, unauthorized, rate_limited, upstream_unavailable) or
    ///   `CancellationError`.
    public func lookup(_ query: LookupQuery) async throws -> WeatherObservation {
        let (coordinate, place, alternatives) = try await resolve(query)
        let observation = try await answer(coordinate.lookupKey, table: weather, ttl: { [limits] _ in limits.cacheTTL }) {
            try await $0.fetch(at: coordinate)
        } failure: { error in
            weatherError(for: error, asked: place.map { "weather at \($0.label)" } ?? "weather at \(coordinate)")
        }
        return place.map { observation.named(after: $0, alternatives: alternatives) } ?? observation
    }

    /// The forecast for `query`, like `lookup`: cached, shared in flight, within the same request
    /// budget.
    /// - Throws: `WeatherError` or `CancellationError`, as `lookup`.
    public func forecast(_ query: LookupQuery) async throws -> WeatherForecast {
        let (coordinate, place, alternatives) = try await resolve(query)
        var forecast = try await answer(coordinate.lookupKey, table: forecasts, ttl: { [limits] _ in limits.cacheTTL }) {
            try await $0.fetchForecast(at: coordinate)
        } failure: { error in
            weatherError(for: error, asked: place.map { "forecast at \($0.label)" } ?? "forecast at \(coordinate)")
        }
        if let place { forecast.place = forecast.place.named(after: place, alternatives: alternatives) }
        return forecast
    }

    /// The places `name` (`Name`, `Name, CC` or `Name, ST, CC`) names, best first, at most `limit`;
    /// empty when no geocoder knows it. Cached per normalized name for `geocode_ttl` (an unknown name
    /// for `cache_ttl`), shared in flight, within the request budget.
    /// - Throws: `WeatherError` (unauthorized, rate_limited, upstream_unavailable) or `CancellationError`.
    public func places(named name: String, limit: Int = placesPerName) async throws -> [Place] {
        Array(try await geocode(name).prefix(max(limit, 0)))
    }

    /// Where `query` is looked up, the place it is named after, and how many other places its name
    /// matched.
    private func resolve(_ query: LookupQuery) async throws -> (Coordinate, Place?, Int) {
        switch query {
        case .coordinate(let coordinate):
            return (coordinate, nil, 0)
        case .place(let place):
            return (place.coordinate, place, 0)
        case .city(let name):
            let found = try await geocode(name)
            guard let first = found.first else { throw WeatherError.notFound(name) }
            return (first.coordinate, first, found.count - 1)
        }
    }

    private func geocode(_ name: String) async throws -> [Place] {
        try await answer(
            .city(LookupKey.normalize(city: name)), table: places,
            ttl: { [limits] in $0.isEmpty ? limits.notFoundTTL : limits.geocodeTTL },
            stored: { if !$0.isEmpty { savePlaces() } }
        ) {
            try await $0.places(PlaceQuery(name), limit: Self.placesPerName)
        } failure: { error in
            weatherError(for: error, asked: "places named \(name)")
        }
    }

    /// The answer for `key` from `table`'s cache, from an identical lookup in flight, or from `fetch`
    /// (within the budget). An answer from upstream is kept for `ttl` of it, then handed to `stored`.
    private func answer<Answer: Sendable>(
        _ key: LookupKey, table: Table<Answer>, ttl: (Answer) -> Duration, stored: (Answer) -> Void = { _ in },
        fetch: (any WeatherUpstream) async throws -> Answer, failure: (UpstreamError) -> WeatherError
    ) async throws -> Answer {
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
            return try await lead(key, table: table, ttl: ttl, stored: stored, now: now, fetch: fetch, failure: failure)
        }
    }

    private func lead<Answer: Sendable>(
        _ key: LookupKey, table: Table<Answer>, ttl: (Answer) -> Duration, stored: (Answer) -> Void, now: DaemonClock.Instant,
        fetch: (any WeatherUpstream) async throws -> Answer, failure: (UpstreamError) -> WeatherError
    ) async throws -> Answer {
        try admit(now: now)
        UpstreamMetrics.lookup(.upstream)
        table.flights[key] = LookupFlight()
        let outcome: LookupFlight<Answer>.Outcome
        var thrown: (any Error)?
        do {
            let answer = try await fetch(upstream)
            outcome = .success(answer)
            store(answer, for: key, in: table, ttl: ttl(answer))
            stored(answer)
        } catch let error as UpstreamError {
            let weatherError = failure(error)
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

    /// Keeps the places of every found name in the place store (not the unknown names: they are
    /// kept briefly, in memory only).
    private func savePlaces() {
        guard let placeStore else { return }
        let now = clock.now
        let wallNow = wallClock()
        var entries: [PlaceCacheEntry] = []
        for (key, entry) in places.cache {
            guard case .city(let name) = key, !entry.answer.isEmpty, now < entry.expires else { continue }
            let expires = wallNow.addingTimeInterval(now.duration(to: entry.expires).timeInterval)
            entries.append(PlaceCacheEntry(name: name, places: entry.answer, expires: expires))
        }
        entries.sort { $0.name < $1.name }
        do {
            try placeStore.save(entries)
        } catch {
            logger.warning("cannot keep the places of \(entries.count) names for the next start: \(error)")
        }
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

    private func store<Answer>(_ answer: Answer, for key: LookupKey, in table: Table<Answer>, ttl: Duration) {
        guard ttl > .zero else { return }
        let now = clock.now
        if table.cache.count >= Self.maxCacheEntries {
            table.cache = table.cache.filter { now < $0.value.expires }
            if table.cache.count >= Self.maxCacheEntries,
               let oldest = table.cache.min(by: { $0.value.expires < $1.value.expires })?.key {
                table.cache[oldest] = nil
            }
        }
        table.cache[key] = CacheEntry(answer: answer, expires: now.advanced(by: ttl))
    }

    /// The error a client sees for `error`, the answer to what was `asked` (`weather at London, GB`);
    /// a 429 starts a block.
    private func weatherError(for error: UpstreamError, asked: String) -> WeatherError {
        switch error {
        case .notFound:
            return WeatherError(.notFound, "no \(asked)")
        case .unauthorized:
            logger.error("OpenWeatherMap rejected the API key (HTTP 401); check the key's source and that it is active")
            return WeatherError(.unauthorized, "OpenWeatherMap rejected the API key")
        case .rateLimited(let retryAfter):
            let wait = retryAfter ?? Self.defaultRetryAfter
            blockedUntil = clock.now.advanced(by: wait)
            blockedUntilWall = wallClock().addingTimeInterval(wait.timeInterval)
            blockStarts.wake()
            logger.warning("OpenWeatherMap answered 429; no request for \(wait.secondsRoundedUp) s")
            return WeatherError(
                .rateLimited, "OpenWeatherMap rate limit reached; retry in \(wait.secondsRoundedUp) s",
                details: ["retry_after": .integer(Int64(wait.secondsRoundedUp))])
        case .unavailable(let message):
            logger.warning("OpenWeatherMap lookup of \(asked) failed: \(message)")
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
