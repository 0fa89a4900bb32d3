import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Answers weather and forecast lookups through a cache, shares identical lookups in flight, and
/// sends each to the providers in the order of `weather.providers`, each within its own budget.
///
/// Every input of the search stream (watched cities, searches, locations, region grids) and every
/// `forecast` and `places` request goes through one `LookupService`, so the budgets and the cache are
/// shared by all of them. The places of names, weather and forecasts are cached and shared apart
/// (each kind of answer has its own table).
///
/// Failover: a lookup goes to the first usable provider; when it answers `upstream_unavailable`,
/// `rate_limited` or `unauthorized`, the same lookup goes to the next usable one, and the requester
/// sees the last provider's error only when none answered. `not_found` is final. A failing provider
/// is asked after the usable ones for a backoff (``ProviderHealth``), never left out of a lookup
/// that would otherwise fail, and is first again once it answers. Cached answers serve whichever
/// provider gave them.
public actor LookupService {
    /// The limits an operator sets: `weather.cache_ttl`, `weather.geocode_ttl`, `weather.providers`
    /// (those with their key) and each provider's budget.
    public struct Limits: Sendable, Equatable {
        public var cacheTTL: Duration
        /// How long the places of a name that was found are kept.
        public var geocodeTTL: Duration
        /// The providers asked, in order of preference; one without its key is not among them.
        public var providers: [WeatherProviderName]
        /// `weather.providers`: those asked and those without their key, in order (`state.providers`).
        public var configured: [WeatherProviderName]
        /// Each provider's requests a minute and (nil: no limit) a day.
        public var budgets: [WeatherProviderName: ProviderBudget]
        /// `air-quality.enabled`: whether features carry air quality.
        public var airQuality = false
        /// `air-quality.scale`: the index the features' air quality says is shown.
        public var airQualityScale = AirQualityScale.european

        public init(
            cacheTTL: Duration, geocodeTTL: Duration = .seconds(30 * 86400), requestsPerMinute: Int,
            providers: [WeatherProviderName] = [.openWeatherMap]
        ) {
            self.init(
                cacheTTL: cacheTTL, geocodeTTL: geocodeTTL, providers: providers,
                budgets: Dictionary(uniqueKeysWithValues: providers.map { ($0, ProviderBudget(perMinute: requestsPerMinute)) }))
        }

        public init(
            cacheTTL: Duration, geocodeTTL: Duration, providers: [WeatherProviderName], configured: [WeatherProviderName]? = nil,
            budgets: [WeatherProviderName: ProviderBudget]
        ) {
            self.cacheTTL = cacheTTL
            self.geocodeTTL = geocodeTTL
            self.providers = providers
            self.configured = configured ?? providers
            self.budgets = budgets
        }

        /// The limits of the configuration, with the providers whose keys were found.
        public init(_ config: DaemonConfig, keys: ProviderKeys) {
            self.init(
                cacheTTL: config.weather.cacheTTL, geocodeTTL: config.weather.geocodeTTL,
                providers: config.weather.providers.filter { $0.canServe(with: keys) },
                configured: config.weather.providers,
                budgets: [
                    .openWeatherMap: ProviderBudget(perMinute: config.openWeatherMap.requestsPerMinute),
                    .openMeteo: ProviderBudget(perMinute: config.openMeteo.requestsPerMinute, perDay: config.openMeteo.requestsPerDay),
                ])
            airQuality = config.airQuality.enabled
            airQualityScale = config.airQuality.scale
        }

        /// How long a name no geocoder knows stays unknown: briefly (no request storm for a typo),
        /// the weather's `cache_ttl`, and never longer than a found name's places.
        var notFoundTTL: Duration { min(cacheTTL, geocodeTTL) }

        func budget(of provider: WeatherProviderName) -> ProviderHealth.Limits {
            let budget = budgets[provider] ?? ProviderBudget(perMinute: 60)
            return ProviderHealth.Limits(requestsPerMinute: budget.perMinute, requestsPerDay: budget.perDay)
        }
    }

    /// A provider's request budget.
    public struct ProviderBudget: Sendable, Equatable {
        public var perMinute: Int
        public var perDay: Int?

        public init(perMinute: Int, perDay: Int? = nil) {
            self.perMinute = perMinute
            self.perDay = perDay
        }
    }

    /// The cache and the lookups in flight of one kind of answer. Owned by the actor (never leaves
    /// it); a class so that one generic lookup loop reads and writes either kind's table across its
    /// suspensions. Its cache (``CachedAnswers``) is also read outside the actor (``cached(_:)``).
    ///
    /// Each kind keeps its own typed table on purpose: with one table holding an enum of both
    /// answers (weather or forecast), the static release build (Swift 6.3.1, -O) corrupted the task
    /// memory of the lookups: weatherd died with SIGILL in `SearchEngine.runLookups` right after
    /// start and during reloads (the debug build did not). No unsafe code of ours was involved.
    final class Table<Answer: Sendable> {
        let cache: CachedAnswers<Answer>
        var flights: [LookupKey: LookupFlight<Answer>] = [:]

        init(_ cache: CachedAnswers<Answer> = CachedAnswers()) {
            self.cache = cache
        }

        /// The unexpired answer for `key`; an expired one goes.
        func cached(_ key: LookupKey, now: DaemonClock.Instant) -> Answer? {
            cache.answer(for: key, now: now)
        }
    }

    /// Every provider the lookups can ask (whether `weather.providers` names it or not), by name.
    private let upstreams: [WeatherProviderName: any WeatherUpstream]
    var health: [WeatherProviderName: ProviderHealth] {
        get { healthNow.withLock { $0 } }
        set { healthNow.withLock { $0 = newValue } }
    }
    /// Each provider's health, under a lock: ``budgetNow`` and ``providerStatusesNow`` read it outside the actor.
    let healthNow: Mutex<[WeatherProviderName: ProviderHealth]>
    private let placeStore: (any PlaceStore)?
    let clock: DaemonClock
    let logger: Logger
    /// The limits, under a lock: ``cached(_:)`` reads them outside the actor.
    private let limitsNow: Mutex<Limits>
    var limits: Limits { currentLimits }
    nonisolated var currentLimits: Limits { limitsNow.withLock { $0 } }
    /// The caches of the weather, the places and the air quality, read outside the actor too.
    let weatherCache = CachedAnswers<WeatherObservation>(), placesCache = CachedAnswers<[Place]>()
    let airQualityCache = CachedAnswers<AirQuality>()
    /// The answers ``cached(_:)`` made from them last.
    let cachedAnswers = MadeAnswers()
    private let weather: Table<WeatherObservation>
    private let forecasts = Table<WeatherForecast>()
    /// The places of each name (by ``LookupKey/normalize(city:)``); an unknown name's empty list too.
    private let places: Table<[Place]>
    /// The places of each name from one provider's geocoder when it is asked besides the one that
    /// answered `places` (``places(named:limit:)``), by provider; in memory only.
    private var morePlaces: [WeatherProviderName: Table<[Place]>] = [:]
    let wallClock: @Sendable () -> Date
    /// Where air quality is asked (nil: nowhere; `limits.airQuality` says whether it is).
    let airQualityUpstream: (any AirQualityUpstream)?
    /// The air quality service's health: a 429's block and a backoff while it fails (its requests
    /// count in its provider's budget, ``health``).
    var airQualityHealth: ProviderHealth {
        get { airQualityHealthNow.withLock { $0 } }
        set { airQualityHealthNow.withLock { $0 = newValue } }
    }
    let airQualityHealthNow = Mutex(ProviderHealth(limits: .init(requestsPerMinute: .max, requestsPerDay: nil), hasKey: true))
    /// The air quality of each 0.01° cell, cached and shared in flight like the weather.
    let airQualities: Table<AirQuality>
    /// Woken when a provider's status changes (it fails, recovers, is blocked), besides its request
    /// counts; ``nextStatusChange`` says when one changes by itself.
    public nonisolated let statusChanges = Wakeup()

    /// Each cache (weather, forecasts) holds at most this many entries; expired ones go first, then the oldest.
    static let maxCacheEntries = 4096

    /// The places a name's geocoding gives, at most: as many as a client may ask `places` for
    /// (OpenWeatherMap gives 5 at most).
    public static let placesPerName = Place.limitRange.upperBound

    /// One provider: the lookups ask `upstream` alone.
    public init(
        upstream: any WeatherUpstream, airQuality: (any AirQualityUpstream)? = nil, limits: Limits,
        placeStore: (any PlaceStore)? = nil, clock: DaemonClock, wallClock: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        var limits = limits
        if !limits.providers.contains(upstream.provider) {
            limits.providers = [upstream.provider]
            limits.configured = [upstream.provider]
            limits.budgets[upstream.provider] = limits.budgets.values.first ?? ProviderBudget(perMinute: 60)
        }
        self.init(
            upstreams: [upstream], airQuality: airQuality, limits: limits, placeStore: placeStore, clock: clock, wallClock: wallClock,
            logger: logger)
    }

    /// - Parameters:
    ///   - upstreams: every provider that may be asked; `limits.providers` says which are, in which order.
    ///   - airQuality: where air quality is asked, when `limits.airQuality` says so.
    ///   - placeStore: where the places of found names are kept across restarts; its entries are
    ///     loaded here.
    public init(
        upstreams: [any WeatherUpstream], airQuality: (any AirQualityUpstream)? = nil, limits: Limits,
        placeStore: (any PlaceStore)? = nil, clock: DaemonClock, wallClock: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.wallClock = wallClock
        self.airQualityUpstream = airQuality
        self.upstreams = Dictionary(upstreams.map { ($0.provider, $0) }, uniquingKeysWith: { first, _ in first })
        self.healthNow = Mutex(
            Dictionary(
                uniqueKeysWithValues: WeatherProviderName.allCases.map {
                    ($0, ProviderHealth(limits: limits.budget(of: $0), hasKey: limits.providers.contains($0)))
                }))
        self.placeStore = placeStore
        self.limitsNow = Mutex(limits)
        (weather, places, airQualities) = (Table(weatherCache), Table(placesCache), Table(airQualityCache))
        self.clock = clock
        self.logger = logger
        if let placeStore {
            let now = clock.now
            let wallNow = wallClock()
            for entry in placeStore.load().prefix(Self.maxCacheEntries) {
                let left = entry.expires.timeIntervalSince(wallNow)
                guard left > 0 else { continue }
                places.cache.keep(entry.places, for: .city(entry.name), until: now.advanced(by: .seconds(left)), now: now)
            }
        }
    }

    /// Applies new limits (configuration reload): providers, their order and budgets; cached answers
    /// stay. A provider that is asked again (its key was given) starts healthy.
    public func update(limits: Limits) {
        let before = statusesWithoutCounts
        let airQualityBefore = self.limits.airQuality
        limitsNow.withLock { $0 = limits }
        for name in WeatherProviderName.allCases {
            let asked = limits.providers.contains(name)
            if asked, health[name]?.hasKey == false { health[name] = ProviderHealth(limits: limits.budget(of: name), hasKey: true) }
            health[name]?.limits = limits.budget(of: name)
            health[name]?.hasKey = asked
        }
        if statusesWithoutCounts != before || limits.airQuality != airQualityBefore { statusChanges.wake() }
    }

    /// The machine was suspended for `suspended` (which the clock did not count): cached answers
    /// age by it, so none older than `cache_ttl` in wall time is served.
    public func resumed(after suspended: Duration) {
        let now = clock.now
        weather.cache.age(by: suspended, now: now)
        forecasts.cache.age(by: suspended, now: now)
        places.cache.age(by: suspended, now: now)
        for table in morePlaces.values { table.cache.age(by: suspended, now: now) }
        airQualities.cache.age(by: suspended, now: now)
    }

    /// Forgets every cached weather answer and forecast (after the units or the language changed);
    /// the places of names stay.
    public func clearCache() {
        weather.cache.removeAll()
        forecasts.cache.removeAll()
        cachedAnswers.removeAll()
    }

    // MARK: Budgets and health

    /// The providers asked, in order (those of `weather.providers` with their key), and that of them
    /// `state.budget` shows: the first.
    private nonisolated var order: [WeatherProviderName] { currentLimits.providers.filter { upstreams[$0] != nil } }

    /// `state.budget` now: the first provider's.
    public var budget: BudgetStatus { budgetNow }

    /// `state.budget` now (``budget``), read in the caller's thread.
    public nonisolated var budgetNow: BudgetStatus {
        let now = clock.now
        guard let first = order.first, let health = healthNow.withLock({ $0[first] }) else { return BudgetStatus(requestsPerMinute: 0) }
        let status = health.status(first, now: now, wallNow: wallClock())
        let blocked = health.refusal(now: now)?.reason == .blocked
        return BudgetStatus(
            requestsPerMinute: health.limits.requestsPerMinute, used: status.usedMinute, blockedUntil: blocked ? status.blockedUntil : nil)
    }

    /// `state.providers` now: one entry for each provider of `weather.providers`, in that order (one
    /// without its key too).
    public var providerStatuses: [ProviderStatus] { providerStatusesNow }

    /// `state.providers` now (``providerStatuses``), read in the caller's thread.
    public nonisolated var providerStatusesNow: [ProviderStatus] {
        let now = clock.now
        let wallNow = wallClock()
        let health = healthNow.withLock { $0 }
        return currentLimits.configured.map { name in
            guard upstreams[name] != nil, let health = health[name] else {
                return ProviderStatus(name: name, usable: false, error: "not available in this build")
            }
            var status = health.status(name, now: now, wallNow: wallNow)
            status.sampleData = upstreams[name]?.servesSampleData ?? false
            return status
        }
    }

    /// Every provider's status without the request counts: what a change of is news.
    private var statusesWithoutCounts: [ProviderStatus] {
        let now = clock.now
        let wallNow = wallClock()
        return WeatherProviderName.allCases.compactMap { name in
            guard var status = health[name]?.status(name, now: now, wallNow: wallNow).withoutCounts else { return nil }
            status.sampleData = upstreams[name]?.servesSampleData ?? false
            return status
        }
    }

    /// When a provider's status next changes by itself (a 429 block, a spent budget or a backoff
    /// ends); nil when nothing is waiting to end.
    public var nextStatusChange: DaemonClock.Instant? {
        let now = clock.now
        return (order.compactMap { health[$0]?.nextChange(now: now) } + [airQualityHealth.nextChange(now: now)].compactMap { $0 }).min()
    }

    /// When the current 429 block of the first provider ends, on the daemon's clock; nil when none holds.
    public var blockEnd: DaemonClock.Instant? {
        let now = clock.now
        guard let first = order.first, let refusal = health[first]?.refusal(now: now), refusal.reason == .blocked,
            let wait = refusal.retryAfter
        else { return nil }
        return now.advanced(by: wait)
    }

    /// Requests (points) sent to the first provider in the last minute.
    public var requestsInLastMinute: Int {
        guard let first = order.first else { return 0 }
        return health[first]?.status(first, now: clock.now, wallNow: wallClock()).usedMinute ?? 0
    }

    /// The providers a lookup tries now, in order (``ProviderHealth/plan(_:health:now:)``): the usable
    /// ones, then those only backing off, then those that refuse (they only say when to retry).
    private func plan(now: DaemonClock.Instant) -> [WeatherProviderName] {
        ProviderHealth.plan(order, health: health, now: now)
    }

    /// Changes a provider's health; a change of its status (besides its counts) wakes the watchers.
    func changeHealth<Result>(of name: WeatherProviderName, _ change: (inout ProviderHealth) -> Result) -> Result {
        let now = clock.now
        let wallNow = wallClock()
        let before = health[name]?.status(name, now: now, wallNow: wallNow).withoutCounts
        let result = change(&health[name, default: ProviderHealth(limits: limits.budget(of: name), hasKey: true)])
        if health[name]?.status(name, now: now, wallNow: wallNow).withoutCounts != before { statusChanges.wake() }
        return result
    }

    /// Of two providers' refusals, the one a requester should see: a wait (rate_limited) rather than
    /// a missing key, and of two waits the shorter (`retry_after`); else the first, the preferred
    /// provider's.
    static func sooner(_ first: WeatherError?, _ second: WeatherError) -> WeatherError {
        guard let first else { return second }
        func wait(_ error: WeatherError) -> Int64? {
            error.code == .rateLimited ? error.details["retry_after"]?.intValue.map(Int64.init) : nil
        }
        switch (wait(first), wait(second)) {
        case (nil, .some): return second
        case (let a?, let b?) where b < a: return second
        default: return first
        }
    }

    /// Counts `count` requests against `name`'s budget; the error a requester sees when it refuses.
    private func admit(_ count: Int, to name: WeatherProviderName, now: DaemonClock.Instant) -> WeatherError? {
        guard let refusal = changeHealth(of: name, { $0.admit(count, now: now) }) else { return nil }
        let wait = refusal.retryAfter?.secondsRoundedUp ?? 0
        let details: JSONObject = ["retry_after": .integer(Int64(wait)), "provider": .string(name.rawValue)]
        switch refusal.reason {
        case .noKey:
            return WeatherError(.unauthorized, "no \(name.displayName) API key")
        case .blocked:
            return WeatherError(.rateLimited, "\(name.displayName) asked to wait; retry in \(wait) s", details: details)
        case .minuteBudget(let limit):
            return WeatherError(
                .rateLimited, "\(name.displayName) request budget of \(limit) per minute is spent; retry in \(wait) s", details: details)
        case .dayBudget(let limit):
            return WeatherError(
                .rateLimited, "\(name.displayName) request budget of \(limit) per day is spent; retry in \(wait) s", details: details)
        }
    }

    /// The weather for `query`: from the cache, from an identical lookup in flight, or upstream. A
    /// name is resolved to places first (``places(named:limit:)``) and its first place looked up by
    /// its coordinates; the observation is named after that place. The provider is asked for the
    /// point's 0.01° cell, which is also what the cache keys on; the observation is at the point asked
    /// (the place's own, whichever point of its cell was asked first).
    /// - Throws: `WeatherError` (not_found, unauthorized, rate_limited, upstream_unavailable) or
    ///   `CancellationError`.
    public func lookup(_ query: LookupQuery) async throws -> WeatherObservation {
        let (coordinate, place, alternatives) = try await resolve(query)
        // Asked beside the weather; its failure leaves only `airQuality` nil.
        async let quality = airQuality(at: [coordinate])
        let observation = try await answer(coordinate.lookupKey, table: weather, ttl: { [limits] _ in limits.cacheTTL }) {
            try await $0.fetch(at: coordinate)
        } asked: {
            place.map { "weather at \($0.label)" } ?? "weather at \(coordinate)"
        }
        return Self.answer(observation, at: coordinate, place: place, alternatives: alternatives, airQuality: await quality.first ?? nil)
    }

    /// The weather at each of `coordinates` (a region's grid) where one request of the first
    /// provider can ask them all (Open-Meteo's list form): each cached point from the cache, the
    /// others together, counted against the budget as one request each. A point left nil is not
    /// answered here (cached nowhere, in flight elsewhere, or the provider asks one point at a time):
    /// look it up alone with ``lookup(_:)``. When the request fails and no other provider can be asked
    /// (usable or only backing off), its points get its error; else they are left nil, and their
    /// lookups fail over one by one.
    ///
    /// The air quality of all the points is asked beside, in one request whichever provider gives
    /// the weather, and lands in the observations answered here; the points left nil find theirs in
    /// its cache when they are looked up alone.
    public func lookUpTogether(_ coordinates: [Coordinate]) async -> [Result<WeatherObservation, WeatherError>?] {
        async let qualities = airQuality(at: coordinates)
        var results = await weatherTogether(coordinates)
        let found = await qualities
        for index in results.indices {
            guard case .success(var observation)? = results[index] else { continue }
            observation.airQuality = found[index]
            results[index] = .success(observation)
        }
        return results
    }

    /// The weather part of ``lookUpTogether(_:)``.
    private func weatherTogether(_ coordinates: [Coordinate]) async -> [Result<WeatherObservation, WeatherError>?] {
        var results = [Result<WeatherObservation, WeatherError>?](repeating: nil, count: coordinates.count)
        let now = clock.now
        var asked: [Int] = []
        var keys = Set<LookupKey>()
        for (index, coordinate) in coordinates.enumerated() {
            let key = coordinate.lookupKey
            if let cached = weather.cached(key, now: now) {
                UpstreamMetrics.lookup(.cache)
                results[index] = .success(cached.at(coordinate))
            } else if weather.flights[key] == nil, keys.insert(key).inserted {
                asked.append(index)
            }
        }
        guard asked.count > 1, let provider = plan(now: now).first, let upstream = upstreams[provider],
            upstream.maxPointsPerRequest > 1
        else { return results }
        var start = asked.startIndex
        while start < asked.endIndex, !Task.isCancelled {
            let chunk = Array(asked[start..<min(start + upstream.maxPointsPerRequest, asked.endIndex)])
            start += chunk.count
            guard admit(chunk.count, to: provider, now: clock.now) == nil else { return results }
            let flights = chunk.map { index in
                let flight = LookupFlight<WeatherObservation>()
                weather.flights[coordinates[index].lookupKey] = flight
                return flight
            }
            let outcome: Result<[WeatherObservation], UpstreamError>?
            do {
                let observations = try await upstream.fetch(at: chunk.map { coordinates[$0] })
                outcome =
                    observations.count == chunk.count
                    ? .success(observations) : .failure(.unavailable("it answered \(observations.count) points of \(chunk.count)"))
            } catch let error as UpstreamError {
                outcome = .failure(error)
            } catch {
                outcome = nil  // cancelled: superseded or shutting down
            }
            for (index, flight) in zip(chunk, flights) {
                let key = coordinates[index].lookupKey
                weather.flights[key] = nil
                switch outcome {
                case .success(let observations)?:
                    let observation = observations[chunk.firstIndex(of: index)!]
                    UpstreamMetrics.lookup(.upstream)
                    store(observation, for: key, in: weather, ttl: limits.cacheTTL)
                    results[index] = .success(observation.at(coordinates[index]))
                    flight.end(.success(observation))
                case .failure, nil:
                    flight.end(.retry)  // a waiter looks again, on its own
                }
            }
            switch outcome {
            case .success?:
                changeHealth(of: provider) { $0.succeeded() }
            case .failure(let error)?:
                let weatherError = weatherError(for: error, from: provider, asked: "weather at \(chunk.count) points")
                if case .notFound = error {
                    for index in chunk { results[index] = .failure(weatherError) }
                    continue
                }
                changeHealth(of: provider) { $0.failed(error, message: error.reason, now: clock.now, wallNow: wallClock()) }
                let others = order.filter { $0 != provider && health[$0]?.standing(now: clock.now) != .refused }
                if others.isEmpty {
                    for index in chunk { results[index] = .failure(weatherError) }
                } else {
                    logger.notice("\(provider.displayName) failed for \(chunk.count) points; asking them one by one elsewhere")
                }
            case nil:
                return results
            }
        }
        return results
    }

    /// The forecast for `query`, like `lookup`: cached, shared in flight, within the same request
    /// budget.
    /// - Throws: `WeatherError` or `CancellationError`, as `lookup`.
    public func forecast(_ query: LookupQuery) async throws -> WeatherForecast {
        let (coordinate, place, alternatives) = try await resolve(query)
        var forecast = try await answer(coordinate.lookupKey, table: forecasts, ttl: { [limits] _ in limits.cacheTTL }) {
            try await $0.fetchForecast(at: coordinate)
        } asked: {
            place.map { "forecast at \($0.label)" } ?? "forecast at \(coordinate)"
        }
        forecast.place = forecast.place.at(coordinate)
        if let place { forecast.place = forecast.place.named(after: place, alternatives: alternatives) }
        return forecast
    }

    /// The places `name` (`Name`, `Name, CC` or `Name, ST, CC`) names, best first, at most `limit`;
    /// empty when no geocoder knows it. Cached per normalized name for `geocode_ttl` (an unknown name
    /// for `cache_ttl`), shared in flight, within the request budget.
    /// - Throws: `WeatherError` (unauthorized, rate_limited, upstream_unavailable) or `CancellationError`.
    ///
    /// When the geocoder that answered gives fewer than `limit` (OpenWeatherMap's matches whole names
    /// only; Open-Meteo's matches a prefix from three letters on), the next provider's geocoder is
    /// asked too, and its places follow those of the first that are not the same place
    /// (``Place/merged(_:_:limit:)``). That second answer is cached like the first, in memory; its
    /// failure leaves the first answer as it is.
    public func places(named name: String, limit: Int = placesPerName) async throws -> [Place] {
        let limit = max(limit, 0)
        let found = try await geocode(name)
        guard found.count < limit else { return Array(found.prefix(limit)) }
        let answered = found.first.flatMap { WeatherProviderName(rawValue: $0.provider) } ?? plan(now: clock.now).first
        guard let next = order.first(where: { $0 != answered && upstreams[$0] != nil }) else { return found }
        let table = morePlaces[next] ?? Table<[Place]>()
        morePlaces[next] = table
        let more: [Place]
        do {
            more = try await answer(
                .city(LookupKey.normalize(city: name)), table: table,
                ttl: { [limits] in $0.isEmpty ? limits.notFoundTTL : limits.geocodeTTL }, providers: [next]
            ) {
                try await $0.places(PlaceQuery(name), limit: Self.placesPerName)
            } asked: {
                "more places named \(name)"
            }
        } catch let error as WeatherError {
            logger.debug("no more places named \(name) from \(next.displayName): \(error.message)")
            return found
        }
        return Place.merged(found, more, limit: limit)
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
            stored: { if !$0.isEmpty { keepPlaces($0, of: LookupKey.normalize(city: name)) } }
        ) {
            try await $0.places(PlaceQuery(name), limit: Self.placesPerName)
        } asked: {
            "places named \(name)"
        }
    }

    /// The answer for `key` from `table`'s cache, from an identical lookup in flight, or from the
    /// providers (``lead``). An answer from upstream is kept for `ttl` of it, then handed to `stored`.
    /// `asked` names what was asked, for errors and logs.
    private func answer<Answer: Sendable>(
        _ key: LookupKey, table: Table<Answer>, ttl: (Answer) -> Duration, stored: (Answer) -> Void = { _ in },
        providers: [WeatherProviderName]? = nil, fetch: (any WeatherUpstream) async throws -> Answer, asked: () -> String
    ) async throws -> Answer {
        while true {
            try Task.checkCancellation()
            if let cached = table.cached(key, now: clock.now) {
                UpstreamMetrics.lookup(.cache)
                return cached
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
            return try await lead(key, table: table, ttl: ttl, stored: stored, providers: providers, fetch: fetch, asked: asked)
        }
    }

    /// Asks the providers for `key`'s answer, in the order of ``plan(now:)`` (or only `providers`),
    /// each within its budget, until one answers or says not_found; identical lookups meanwhile wait
    /// for it.
    private func lead<Answer: Sendable>(
        _ key: LookupKey, table: Table<Answer>, ttl: (Answer) -> Duration, stored: (Answer) -> Void,
        providers only: [WeatherProviderName]?, fetch: (any WeatherUpstream) async throws -> Answer, asked: () -> String
    ) async throws -> Answer {
        let providers = only ?? plan(now: clock.now)
        // Refused at once by every provider (blocked, budget spent): no flight to share.
        var lastError: WeatherError?
        var admitted: WeatherProviderName?
        var untried = providers[...]
        while admitted == nil, let provider = untried.popFirst() {
            if let refusal = admit(1, to: provider, now: clock.now) {
                lastError = Self.sooner(lastError, refusal)
            } else {
                admitted = provider
            }
        }
        guard var provider = admitted else {
            throw lastError ?? WeatherError(.upstreamUnavailable, "no weather provider is configured")
        }
        UpstreamMetrics.lookup(.upstream)
        table.flights[key] = LookupFlight()
        var outcome: LookupFlight<Answer>.Outcome = .retry
        var thrown: (any Error)?
        attempts: while true {
            do {
                let answer = try await fetch(upstreams[provider]!)
                changeHealth(of: provider) { $0.succeeded() }
                outcome = .success(answer)
                thrown = nil  // an earlier provider's error, answered by this one
                store(answer, for: key, in: table, ttl: ttl(answer))
                stored(answer)
                break attempts
            } catch let error as UpstreamError {
                let weatherError = weatherError(for: error, from: provider, asked: asked())
                outcome = .failure(weatherError)
                thrown = weatherError
                if case .notFound = error {
                    changeHealth(of: provider) { $0.succeeded() }  // it answered: not found is final
                    break attempts
                }
                changeHealth(of: provider) { $0.failed(error, message: error.reason, now: clock.now, wallNow: wallClock()) }
                // The same lookup goes to the next provider that admits it.
                while let next = untried.popFirst() {
                    if let refusal = admit(1, to: next, now: clock.now) {
                        logger.debug("\(next.displayName) cannot take \(asked()) now: \(refusal.message)")
                        continue
                    }
                    logger.notice("asking \(next.displayName) for \(asked()) instead")
                    provider = next
                    continue attempts
                }
                break attempts
            } catch {
                outcome = .retry  // cancelled: a waiter, if any, tries again
                thrown = error
                break attempts
            }
        }
        table.flights.removeValue(forKey: key)?.end(outcome)
        if let thrown { throw thrown }
        guard case .success(let answer) = outcome else { preconditionFailure() }
        return answer
    }

    /// Keeps the places of a found name in the place store (not the unknown names: they are kept
    /// briefly, in memory only), for `geocode_ttl`. The store writes them later, off this actor.
    private func keepPlaces(_ found: [Place], of name: String) {
        placeStore?.keep(
            PlaceCacheEntry(name: name, places: found, expires: wallClock().addingTimeInterval(limits.geocodeTTL.timeInterval)))
    }

    func store<Answer>(_ answer: Answer, for key: LookupKey, in table: Table<Answer>, ttl: Duration) {
        guard ttl > .zero else { return }
        let now = clock.now
        table.cache.keep(answer, for: key, until: now.advanced(by: ttl), now: now)
    }

    /// The error a client sees for `provider`'s `error`, the answer to what was `asked` (`weather at
    /// London, GB`), logged as the operator needs it.
    private func weatherError(for error: UpstreamError, from provider: WeatherProviderName, asked: String) -> WeatherError {
        let name = provider.displayName
        var details: JSONObject = ["provider": .string(provider.rawValue)]
        switch error {
        case .notFound:
            return WeatherError(.notFound, "no \(asked)")
        case .unauthorized:
            logger.error("\(name) rejected the API key (HTTP 401); check the key's source and that it is active")
            return WeatherError(.unauthorized, "\(name) rejected the API key", details: details)
        case .rateLimited(let retryAfter):
            let wait = (retryAfter ?? ProviderHealth.defaultRetryAfter).secondsRoundedUp
            logger.warning("\(name) answered 429; no request to it for \(wait) s")
            details["retry_after"] = .integer(Int64(wait))
            return WeatherError(.rateLimited, "\(name) rate limit reached; retry in \(wait) s", details: details)
        case .unavailable(let message):
            logger.warning("\(name) lookup of \(asked) failed: \(message)")
            return WeatherError(.upstreamUnavailable, "\(name) is unavailable: \(message)", details: details)
        }
    }
}

extension LookupService: Reconfigurable {
    /// New limits apply at once (cached answers stay); after a change that makes fetched weather
    /// wrong (units, language, provider) every cached answer is dropped.
    public func apply(_ change: ConfigChange) {
        update(limits: Limits(change.new, keys: change.keys))
        if change.invalidatesWeather { clearCache() }
    }
}
