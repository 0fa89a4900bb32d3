#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The daemon's one explicit state: the activity indicator and the phase of the latest search.
public struct DaemonState: Sendable, Hashable, JSONRepresentable {
    /// Lookups in flight.
    public var pending: Int
    public var phase: SearchPhase
    public var input: SearchInput?
    /// Set exactly when `phase` is `.error`.
    public var error: WeatherError?
    public var gps: GPSStatus
    /// The fused location of every source; nil with no fix younger than `location.max_age`.
    public var location: LocationFix?
    /// Every kind of location source, always all four.
    public var locationSources: [LocationSourceStatus]
    /// The request budget; a change of `used` alone is no news (no notification).
    public var budget: BudgetStatus
    /// Each provider of `weather.providers`, in that order; a change of its request counts alone is
    /// no news.
    public var providers: [ProviderStatus]
    /// The services besides the weather providers (`air-quality`, `nws`, …), each as it reports itself.
    public var services: [ServiceStatus] = []
    public var updatedAt: Date

    /// True exactly while lookups are in flight.
    public var running: Bool { pending > 0 }

    public init(
        pending: Int, phase: SearchPhase, input: SearchInput?, error: WeatherError? = nil, gps: GPSStatus,
        budget: BudgetStatus = BudgetStatus(requestsPerMinute: 60), providers: [ProviderStatus] = [], updatedAt: Date
    ) {
        self.budget = budget
        self.providers = providers
        self.pending = pending
        self.phase = phase
        self.input = input
        self.error = error
        self.gps = gps
        self.location = nil
        self.locationSources = LocationSourceKind.allCases.map {
            switch $0 {
            case .gpsd: LocationSourceStatus(kind: $0, enabled: gps.enabled, connected: gps.connected)
            case .client: LocationSourceStatus(kind: $0, enabled: true, connected: true)
            case .owntracks, .geoclue: LocationSourceStatus(kind: $0, enabled: false, connected: false)
            }
        }
        self.updatedAt = updatedAt
    }

    public var json: JSONValue {
        .object([
            "running": .bool(running), "phase": .string(phase.rawValue), "pending": .integer(Int64(pending)),
            "input": input?.json ?? .null,
            "error": error.map { .object(["code": .integer(Int64($0.code.value)), "message": .string($0.message)]) } ?? .null,
            "gps": gps.json, "location": location?.json ?? .null, "location_sources": .array(locationSources.map(\.json)),
            "budget": budget.json,
            "providers": .array(providers.map(\.json)), "services": .array(services.map(\.json)),
            "updated_at": .string(Timestamp.iso8601(updatedAt)),
        ])
    }

    /// Equal but for the time of the change, the budget's `used` and the providers' request counts
    /// (which change with every request: no news on their own).
    func sameFields(as other: DaemonState) -> Bool {
        guard !searchFieldsDiffer(from: other) else { return false }
        var other = other
        other.updatedAt = updatedAt
        other.budget.used = budget.used
        guard providers.count == other.providers.count else { return false }
        for index in providers.indices {
            other.providers[index].usedMinute = providers[index].usedMinute
            other.providers[index].usedDay = providers[index].usedDay
        }
        return self == other
    }

    /// A change of the location alone (besides what `sameFields` leaves out): of `gps.last_fix`, the
    /// fused `location` or the sources' `last_fix_at`, whichever source brought it (gpsd, a client's
    /// report, a device). Sent at most once every 10 s, or every second while it moves
    /// (``LocationNoticeState``).
    func changesOnlyLocation(from other: DaemonState) -> Bool {
        guard other.locationSources.count == locationSources.count, !searchFieldsDiffer(from: other) else { return false }
        var other = other
        other.gps.lastFix = gps.lastFix
        other.location = location
        for index in locationSources.indices { other.locationSources[index].lastFixAt = locationSources[index].lastFixAt }
        return sameFields(as: other)
    }

    /// Whether one of the search's fields differs (its count, phase, input or error), which both
    /// comparisons above take as they are. Most changes are one of these (a search, a lookup done),
    /// and this answers them without copying the state.
    private func searchFieldsDiffer(from other: DaemonState) -> Bool {
        pending != other.pending || phase != other.phase || input != other.input || error != other.error
    }

    /// Where the state places the daemon, for the notice throttle: the fused location, else gpsd's
    /// last fix.
    var noticeLocation: Coordinate? { location?.coordinate ?? gps.lastFix?.coordinate }
}
