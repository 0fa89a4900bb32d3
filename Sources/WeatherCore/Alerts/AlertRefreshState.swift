#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When the alerts of the places on the map are asked, and what is kept of the answers: a plain
/// state machine (events in, the requests to send out), one per alert provider, driven by
/// ``AlertService``.
///
/// - Each 0.01° cell on the map (``track(_:now:)``) is asked at once, then every `refresh`; a cell
///   that leaves the map is forgotten.
/// - The requests spend the provider's own budget and back off after failures (``ProviderHealth``,
///   as the weather providers do): while it refuses or backs off nothing is sent.
/// - A failed refresh keeps the last alerts, marked stale; the cell is asked again after the backoff.
/// - A cell the provider says is outside its area is not asked again for ``Settings/outsideHold``,
///   even when it leaves the map and comes back.
/// - An alert is dropped at its `ends`, else its `expires` (``expire(wallNow:)``).
/// - A zone-based alert's zones are asked once each and their shapes kept for ``Settings/zoneTTL``.
public struct AlertRefreshState: Sendable {
    public struct Settings: Sendable, Equatable {
        /// How often a cell's alerts are asked again.
        public var refresh: Duration
        /// The request budget per minute.
        public var requestsPerMinute: Int
        /// How long a zone's shape is kept (`weather.geocode_ttl`).
        public var zoneTTL: Duration
        /// How long a cell outside the provider's area is not asked again.
        public var outsideHold: Duration

        public init(refresh: Duration, requestsPerMinute: Int, zoneTTL: Duration, outsideHold: Duration = .seconds(7 * 86_400)) {
            self.refresh = refresh
            self.requestsPerMinute = requestsPerMinute
            self.zoneTTL = zoneTTL
            self.outsideHold = outsideHold
        }
    }

    /// A request to send.
    public enum Request: Sendable, Hashable {
        /// The alerts at a cell.
        case cell(AlertCell)
        /// A zone's shape (its URL, an entry of ``Alert/zones``).
        case zone(String)
    }

    /// What is known of one cell's alerts.
    public struct CellAlerts: Sendable, Hashable {
        /// The alerts in force, most severe first; nil until the first answer.
        public var alerts: [Alert]?
        /// A refresh failed after the alerts were got: they are the last ones known.
        public var stale: Bool
    }

    private struct Cell {
        var known = CellAlerts(alerts: nil, stale: false)
        var due: DaemonClock.Instant
        var inFlight = false
    }

    private struct Zone {
        var area: AlertArea?
        /// Until when the shape (or, after a failure, the wait) holds.
        var until: DaemonClock.Instant
        var known: Bool
    }

    public private(set) var settings: Settings
    private var health: ProviderHealth
    private var cells: [AlertCell: Cell] = [:]
    /// Cells the provider said were outside its area, and until when they are not asked.
    private var outside: [AlertCell: DaemonClock.Instant] = [:]
    private var zones: [String: Zone] = [:]
    private var zonesInFlight: Set<String> = []

    public init(settings: Settings) {
        self.settings = settings
        health = ProviderHealth(limits: .init(requestsPerMinute: settings.requestsPerMinute, requestsPerDay: nil), hasKey: true)
    }

    // MARK: Events

    /// The cells of the places on the map now (only those the provider covers). A new one is due at
    /// once; one that left is forgotten (an answer still on its way for it is dropped).
    public mutating func track(_ tracked: Set<AlertCell>, now: DaemonClock.Instant) {
        for cell in cells.keys where !tracked.contains(cell) { cells[cell] = nil }
        for cell in tracked where cells[cell] == nil { cells[cell] = Cell(due: now) }
    }

    /// The requests to send now, each counted against the budget: every due cell not in flight (in
    /// cell order) and every zone an alert needs that is neither known nor asked, while the budget
    /// lasts and the provider is not blocked or backing off. Each is in flight until it is answered
    /// or failed.
    public mutating func requests(now: DaemonClock.Instant) -> [Request] {
        pruneOutside(now: now)
        guard !health.isBackingOff(now: now) else { return [] }
        var due: [Request] = []
        for (cell, state) in cells.sorted(by: { $0.key < $1.key })
        where !state.inFlight && state.due <= now && outside[cell] == nil {
            due.append(.cell(cell))
        }
        for zone in neededZones(now: now) { due.append(.zone(zone)) }
        var sent: [Request] = []
        for request in due {
            guard health.admit(now: now) == nil else { break }
            switch request {
            case .cell(let cell): cells[cell]?.inFlight = true
            case .zone(let zone): zonesInFlight.insert(zone)
            }
            sent.append(request)
        }
        return sent
    }

    /// Counts one request asked for outside the refreshes (the `alerts` method at a point not on the
    /// map), or says why it cannot be sent now.
    mutating func admitOne(now: DaemonClock.Instant) -> ProviderHealth.Refusal? {
        health.admit(now: now)
    }

    /// A cell's alerts arrived. Returns whether what is known changed.
    public mutating func answered(_ cell: AlertCell, alerts: [Alert], now: DaemonClock.Instant, wallNow: Date) -> Bool {
        health.succeeded()
        guard var state = cells[cell] else { return false }
        let before = state.known
        state.known = CellAlerts(alerts: Alert.ordered(alerts.filter { !$0.isOver(at: wallNow) }), stale: false)
        state.inFlight = false
        state.due = now.advanced(by: settings.refresh)
        cells[cell] = state
        return state.known != before
    }

    /// Asking a cell failed. `notFound` (outside the provider's area): the cell has no alerts and is
    /// not asked again for ``Settings/outsideHold``. Anything else: the last alerts are kept, marked
    /// stale, and the provider backs off (a 429 blocks it). Returns whether what is known changed.
    public mutating func failed(
        _ cell: AlertCell, _ error: UpstreamError, now: DaemonClock.Instant, wallNow: Date
    ) -> Bool {
        if case .notFound = error {
            health.succeeded()
            outside[cell] = now.advanced(by: settings.outsideHold)
            guard var state = cells[cell] else { return false }
            let before = state.known
            state.known = CellAlerts(alerts: nil, stale: false)
            state.inFlight = false
            cells[cell] = state
            return state.known != before
        }
        health.failed(error, message: error.reason, now: now, wallNow: wallNow)
        guard var state = cells[cell] else { return false }
        let before = state.known
        state.inFlight = false
        state.known.stale = state.known.alerts != nil
        state.due = now.advanced(by: min(health.backoff, settings.refresh))
        cells[cell] = state
        return state.known != before
    }

    /// A zone's shape arrived (nil: it has none). Returns whether an alert's area changed.
    public mutating func zoneAnswered(_ zone: String, area: AlertArea?, now: DaemonClock.Instant) -> Bool {
        health.succeeded()
        zonesInFlight.remove(zone)
        zones[zone] = Zone(area: area, until: now.advanced(by: settings.zoneTTL), known: true)
        return area != nil
    }

    /// Asking a zone failed: it is asked again after a refresh (a shape known before is kept).
    public mutating func zoneFailed(_ zone: String, _ error: UpstreamError, now: DaemonClock.Instant, wallNow: Date) {
        if case .notFound = error {
            health.succeeded()
        } else {
            health.failed(error, message: error.reason, now: now, wallNow: wallNow)
        }
        zonesInFlight.remove(zone)
        let kept = zones[zone].flatMap { $0.known ? $0.area : nil }
        zones[zone] = Zone(area: kept, until: now.advanced(by: settings.refresh), known: kept != nil)
    }

    /// Drops the alerts that are over at `wallNow`. Returns whether any was dropped.
    public mutating func expire(wallNow: Date) -> Bool {
        var changed = false
        for (cell, state) in cells {
            guard let alerts = state.known.alerts else { continue }
            let remaining = alerts.filter { !$0.isOver(at: wallNow) }
            if remaining.count != alerts.count {
                cells[cell]?.known.alerts = remaining
                changed = true
            }
        }
        return changed
    }

    /// New settings (a refresh or budget of a reload); what is known stays.
    public mutating func apply(_ settings: Settings) {
        self.settings = settings
        health.limits = .init(requestsPerMinute: settings.requestsPerMinute, requestsPerDay: nil)
    }

    // MARK: Reading

    /// What is known of `cell`'s alerts; nil when it is not on the map or outside the provider's area.
    public func alerts(at cell: AlertCell) -> CellAlerts? {
        guard outside[cell] == nil else { return nil }
        return cells[cell]?.known
    }

    /// Whether the provider said `cell` is outside its area (and that still holds).
    public func isOutside(_ cell: AlertCell) -> Bool { outside[cell] != nil }

    /// Every alert in force on the map with its area (its own, else its zones' known shapes), once
    /// each, most severe first.
    public var areas: [(alert: Alert, area: AlertArea)] {
        var seen = Set<String>()
        var result: [(Alert, AlertArea)] = []
        for alert in Alert.ordered(cells.values.flatMap { $0.known.alerts ?? [] }) where seen.insert(alert.id).inserted {
            if let area = alert.area ?? AlertArea(merging: alert.zones.compactMap { zones[$0]?.area }) {
                result.append((alert, area))
            }
        }
        return result
    }

    /// The moment something is due by itself: a cell's refresh, the end of the provider's backoff
    /// or block, or an alert's end (at `wallNow` on the wall clock, `now` on the daemon's).
    public func nextWake(now: DaemonClock.Instant, wallNow: Date) -> DaemonClock.Instant? {
        var moments: [DaemonClock.Instant] = []
        if health.isUsable(now: now) {
            if let due = cells.filter({ !$0.value.inFlight && outside[$0.key] == nil }).map(\.value.due).min() {
                moments.append(due)
            }
            if let zoneDue = neededZoneMoments(now: now) { moments.append(zoneDue) }
        } else if let change = health.nextChange(now: now) {
            // Nothing is sent before the block, the spent budget or the backoff ends.
            moments.append(change)
        }
        if let back = outside.values.min() { moments.append(back) }
        let ends = cells.values.flatMap { $0.known.alerts ?? [] }.compactMap(\.until)
        if let end = ends.min() { moments.append(now.advanced(by: .seconds(max(end.timeIntervalSince(wallNow), 0)))) }
        return moments.min()
    }

    /// The provider's health as `state.services` shows it.
    public func status(_ name: String, now: DaemonClock.Instant, wallNow: Date) -> ServiceStatus {
        Self.status(name, of: health, now: now, wallNow: wallNow)
    }

    /// The provider's health, which its status (``status(_:now:wallNow:)``) is made of.
    var providerHealth: ProviderHealth { health }

    /// The status of a provider named `name` whose health is `health`.
    static func status(_ name: String, of health: ProviderHealth, now: DaemonClock.Instant, wallNow: Date) -> ServiceStatus {
        let health = health.summary(now: now, wallNow: wallNow)
        return ServiceStatus(name: name, usable: health.usable, blockedUntil: health.blockedUntil, error: health.error)
    }

    // MARK: Zones

    /// The zones the alerts on the map need: not known (or known too long ago) and not in flight.
    private func neededZones(now: DaemonClock.Instant) -> [String] {
        var needed: [String] = []
        var seen = Set<String>()
        for alert in cells.values.flatMap({ $0.known.alerts ?? [] }) where alert.area == nil {
            for zone in alert.zones where seen.insert(zone).inserted && !zonesInFlight.contains(zone) {
                if let known = zones[zone], now < known.until { continue }
                needed.append(zone)
            }
        }
        return needed
    }

    /// When a zone an alert needs is due again (a failed one waits a refresh).
    private func neededZoneMoments(now: DaemonClock.Instant) -> DaemonClock.Instant? {
        var moments: [DaemonClock.Instant] = []
        for alert in cells.values.flatMap({ $0.known.alerts ?? [] }) where alert.area == nil {
            for zone in alert.zones where !zonesInFlight.contains(zone) {
                moments.append(zones[zone].map { max($0.until, now) } ?? now)
            }
        }
        return moments.min()
    }

    private mutating func pruneOutside(now: DaemonClock.Instant) {
        for (cell, until) in outside where until <= now { outside[cell] = nil }
    }
}

extension AlertRefreshState.Settings {
    /// The settings of `[alerts]`, zones kept for `weather.geocode_ttl`.
    public init(_ config: DaemonConfig) {
        self.init(
            refresh: config.alerts.refresh, requestsPerMinute: config.alerts.requestsPerMinute,
            zoneTTL: config.weather.geocodeTTL)
    }
}
