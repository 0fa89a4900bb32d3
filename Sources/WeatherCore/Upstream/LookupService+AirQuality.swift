import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension LookupService: ServiceStatusReporting {
    /// The name of the air quality service in `state.services`.
    public static let airQualityService = "air-quality"

    /// `state.services`' `air-quality` entry (none without an air quality upstream): not usable
    /// while disabled, blocked by a 429, backing off after a failure, or while its provider's
    /// budget is spent.
    public var serviceStatuses: [ServiceStatus] { serviceStatusesNow ?? [] }

    /// `state.services`' `air-quality` entry (``serviceStatuses``), read in the caller's thread.
    public nonisolated var serviceStatusesNow: [ServiceStatus]? {
        guard let upstream = airQualityUpstream else { return [] }
        guard currentLimits.airQuality else {
            return [ServiceStatus(name: Self.airQualityService, usable: false, error: "disabled (air-quality.enabled = false)")]
        }
        let now = clock.now
        let wallNow = wallClock()
        let status = airQualityHealthNow.withLock { $0 }.status(upstream.provider, now: now, wallNow: wallNow)
        if status.usable, let refusal = healthNow.withLock({ $0[upstream.provider] })?.budgetRefusal(now: now) {
            let budget: String
            switch refusal.reason {
            case .dayBudget(let limit): budget = "\(limit) a day"
            case .minuteBudget(let limit): budget = "\(limit) a minute"
            case .noKey, .blocked: budget = "requests"
            }
            return [
                ServiceStatus(
                    name: Self.airQualityService, usable: false,
                    blockedUntil: refusal.retryAfter.map { wallNow.addingTimeInterval($0.timeInterval) },
                    error: "\(upstream.provider.displayName) request budget of \(budget) is spent")
            ]
        }
        return [ServiceStatus(name: Self.airQualityService, usable: status.usable, blockedUntil: status.blockedUntil, error: status.error)]
    }

    /// The air quality at each of `coordinates`, in order, saying `air-quality.scale`; nil where it is
    /// disabled or not known.
    /// Each 0.01° cell's from the cache (for `cache_ttl`), from an identical lookup in flight, or
    /// with the other cells in one request (of at most the upstream's points), counted in its
    /// provider's budget as one request per point. Never an error: while the service fails (backing
    /// off or blocked) or the budget is spent, nothing is asked and the points get nil; its failure
    /// shows in `state.services`.
    func airQuality(at coordinates: [Coordinate]) async -> [AirQuality?] {
        guard limits.airQuality, let upstream = airQualityUpstream, !coordinates.isEmpty else {
            return [AirQuality?](repeating: nil, count: coordinates.count)
        }
        let now = clock.now
        var answers: [LookupKey: AirQuality] = [:]
        var waits: [(LookupKey, LookupFlight<AirQuality>)] = []
        var asked: [Coordinate] = []
        var seen = Set<LookupKey>()
        for coordinate in coordinates {
            let key = coordinate.lookupKey
            guard seen.insert(key).inserted else { continue }
            if let cached = airQualities.cached(key, now: now) {
                answers[key] = cached
            } else if let flight = airQualities.flights[key] {
                waits.append((key, flight))
            } else {
                asked.append(coordinate)
            }
        }
        var start = asked.startIndex
        while start < asked.endIndex, !Task.isCancelled {
            let chunk = Array(asked[start..<min(start + upstream.maxPointsPerRequest, asked.endIndex)])
            start += chunk.count
            guard admitAirQuality(chunk.count, provider: upstream.provider) else { break }
            let flights = chunk.map { coordinate in
                let flight = LookupFlight<AirQuality>()
                airQualities.flights[coordinate.lookupKey] = flight
                return flight
            }
            let outcome: Result<[AirQuality], UpstreamError>?
            do {
                let found = try await upstream.airQuality(at: chunk)
                outcome =
                    found.count == chunk.count
                    ? .success(found) : .failure(.unavailable("it answered \(found.count) points of \(chunk.count)"))
            } catch let error as UpstreamError {
                outcome = .failure(error)
            } catch {
                outcome = nil  // cancelled: superseded or shutting down
            }
            for (index, (coordinate, flight)) in zip(chunk, flights).enumerated() {
                let key = coordinate.lookupKey
                airQualities.flights[key] = nil
                if case .success(let found)? = outcome {
                    store(found[index], for: key, in: airQualities, ttl: limits.cacheTTL)
                    answers[key] = found[index]
                    flight.end(.success(found[index]))
                } else {
                    flight.end(.retry)  // a waiter goes without
                }
            }
            switch outcome {
            case .success?:
                changeAirQualityHealth { $0.succeeded() }
            case .failure(let error)?:
                logger.warning("air quality at \(chunk.count) point\(chunk.count == 1 ? "" : "s") failed: \(error.reason)")
                changeAirQualityHealth { [clock, wallClock] in
                    $0.failed(error, message: error.reason, now: clock.now, wallNow: wallClock())
                }
            case nil:
                break
            }
            if case .success? = outcome {} else { break }
        }
        for (key, flight) in waits {
            if case .success(let found) = await flight.wait() { answers[key] = found }
        }
        let scale = limits.airQualityScale
        return coordinates.map { answers[$0.lookupKey]?.shown(on: scale) }
    }

    /// Whether `count` air quality points may be asked now: the service is neither blocked nor
    /// backing off, and its provider's budget takes them (then they are counted in it).
    private func admitAirQuality(_ count: Int, provider: WeatherProviderName) -> Bool {
        let now = clock.now
        guard airQualityHealth.standing(now: now) == .usable else { return false }
        if let refusal = changeHealth(of: provider, { $0.admitBudget(count, now: now) }) {
            logger.debug("no air quality asked: \(provider.displayName)'s budget is spent (\(refusal.reason))")
            statusChanges.wake()
            return false
        }
        return true
    }

    /// Changes the air quality service's health; a change of its status wakes the watchers.
    private func changeAirQualityHealth(_ change: (inout ProviderHealth) -> Void) {
        let now = clock.now
        let wallNow = wallClock()
        let before = airQualityHealth.status(.openMeteo, now: now, wallNow: wallNow).withoutCounts
        change(&airQualityHealth)
        if airQualityHealth.status(.openMeteo, now: now, wallNow: wallNow).withoutCounts != before { statusChanges.wake() }
    }
}
