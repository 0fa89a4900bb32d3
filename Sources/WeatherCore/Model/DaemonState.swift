#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The daemon's one explicit state: the activity indicator and the phase of the latest search.
public struct DaemonState: Sendable, Hashable, JSONRepresentable {
    /// The stored fields, kept in one heap block (``CopyOnWrite``): a state is copied
    /// into every turn's effects and changes, and is some 300 bytes with a dozen arrays and strings.
    struct Fields: Sendable, Hashable {
        var pending: Int
        var phase: SearchPhase
        var input: SearchInput?
        var error: WeatherError?
        var gps: GPSStatus
        var location: LocationFix?
        var locationSources: [LocationSourceStatus]
        var budget: BudgetStatus
        var providers: [ProviderStatus]
        var services: [ServiceStatus] = []
        var updatedAt: Date
    }

    private var fields: CopyOnWrite<Fields>

    /// Lookups in flight.
    public var pending: Int {
        get { fields.value.pending }
        set { fields.modify { $0.pending = newValue } }
    }
    public var phase: SearchPhase {
        get { fields.value.phase }
        set { fields.modify { $0.phase = newValue } }
    }
    public var input: SearchInput? {
        get { fields.value.input }
        set { fields.modify { $0.input = newValue } }
    }
    /// Set exactly when `phase` is `.error`.
    public var error: WeatherError? {
        get { fields.value.error }
        set { fields.modify { $0.error = newValue } }
    }
    public var gps: GPSStatus {
        get { fields.value.gps }
        set { fields.modify { $0.gps = newValue } }
    }
    /// The fused location of every source; nil with no fix younger than `location.max_age`.
    public var location: LocationFix? {
        get { fields.value.location }
        set { fields.modify { $0.location = newValue } }
    }
    /// Every kind of location source, always all four.
    public var locationSources: [LocationSourceStatus] {
        get { fields.value.locationSources }
        set { fields.modify { $0.locationSources = newValue } }
    }
    /// The request budget; a change of `used` alone is no news (no notification).
    public var budget: BudgetStatus {
        get { fields.value.budget }
        set { fields.modify { $0.budget = newValue } }
    }
    /// Each provider of `weather.providers`, in that order; a change of its request counts alone is
    /// no news.
    public var providers: [ProviderStatus] {
        get { fields.value.providers }
        set { fields.modify { $0.providers = newValue } }
    }
    /// The services besides the weather providers (`air-quality`, `nws`, …), each as it reports itself.
    public var services: [ServiceStatus] {
        get { fields.value.services }
        set { fields.modify { $0.services = newValue } }
    }
    public var updatedAt: Date {
        get { fields.value.updatedAt }
        set { fields.modify { $0.updatedAt = newValue } }
    }

    /// True exactly while lookups are in flight.
    public var running: Bool { pending > 0 }

    public init(
        pending: Int, phase: SearchPhase, input: SearchInput?, error: WeatherError? = nil, gps: GPSStatus,
        budget: BudgetStatus = BudgetStatus(requestsPerMinute: 60), providers: [ProviderStatus] = [], updatedAt: Date
    ) {
        let locationSources = LocationSourceKind.allCases.map {
            switch $0 {
            case .gpsd: LocationSourceStatus(kind: $0, enabled: gps.enabled, connected: gps.connected)
            case .client: LocationSourceStatus(kind: $0, enabled: true, connected: true)
            case .owntracks, .geoclue: LocationSourceStatus(kind: $0, enabled: false, connected: false)
            }
        }
        fields = CopyOnWrite(
            Fields(
                pending: pending, phase: phase, input: input, error: error, gps: gps, location: nil,
                locationSources: locationSources, budget: budget, providers: providers, updatedAt: updatedAt))
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
        return fields.value.sameFields(as: other.fields.value)
    }

    /// A change of the location alone (besides what `sameFields` leaves out): of `gps.last_fix`, the
    /// fused `location` or the sources' `last_fix_at`, whichever source brought it (gpsd, a client's
    /// report, a device). Sent at most once every 10 s, or every second while it moves
    /// (``LocationNoticeState``).
    func changesOnlyLocation(from other: DaemonState) -> Bool {
        guard other.locationSources.count == locationSources.count, !searchFieldsDiffer(from: other) else { return false }
        let mine = fields.value
        var other = other.fields.value
        other.gps.lastFix = mine.gps.lastFix
        other.location = mine.location
        for index in mine.locationSources.indices { other.locationSources[index].lastFixAt = mine.locationSources[index].lastFixAt }
        return mine.sameFields(as: other)
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

extension DaemonState.Fields {
    /// ``DaemonState/sameFields(as:)`` on the plain fields, changed in place in a copy of `other`.
    fileprivate func sameFields(as other: Self) -> Bool {
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
}
