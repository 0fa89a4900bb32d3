import CoreMetrics
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The location input of the search stream: takes gpsd's reports from the reader and clients'
/// `location.report`s, fuses them into one location (``LocationFusion``), keeps `state.gps`,
/// `state.location` and `state.location_sources` true, answers `locate` with the next fused fix,
/// and reports each new fused location (and each fix a `locate` took) to the search stream, whose
/// follow rule (``FollowPolicy``) decides which are searched; ``runFollow()`` runs those searches.
public actor LocationService {
    /// The `[gpsd]`, `[location]` and `[geoclue]` settings this service uses.
    public struct Settings: Sendable, Equatable {
        /// `gpsd.enabled`.
        public var enabled: Bool
        /// `geoclue.enabled`.
        public var geoclueEnabled: Bool
        /// Which gpsd reports are fixes (`state.gps.last_fix`).
        public var filter: FixFilter
        public var fusion: LocationFusion.Settings
        public var locateTimeout: Duration
        public var follow: Bool
        public var followDistance: Double
        /// Whether `owntracks.follow`'s device can send fixes (a device is named, and MQTT topics or HTTP mode are on).
        public var ownTracks: Bool

        public init(
            enabled: Bool, maxHorizontalError: Double, reportMaxHorizontalError: Double = 5000, maxAge: Duration = .seconds(120),
            hold: Duration = .seconds(30), locateTimeout: Duration, follow: Bool, followDistance: Double, ownTracks: Bool = false,
            geoclue: GeoClueConfig = GeoClueConfig()
        ) {
            self.enabled = enabled
            self.ownTracks = ownTracks
            self.geoclueEnabled = geoclue.enabled
            self.filter = FixFilter(maxHorizontalError: maxHorizontalError)
            self.fusion = LocationFusion.Settings(
                maxHorizontalError: [
                    .gpsd: maxHorizontalError, .owntracks: maxHorizontalError, .client: reportMaxHorizontalError,
                    .geoclue: geoclue.maxHorizontalError,
                ],
                maxAge: maxAge, hold: hold)
            self.locateTimeout = locateTimeout
            self.follow = follow
            self.followDistance = followDistance
        }

        /// The settings of the `[gpsd]`, `[location]`, `[owntracks]` and `[geoclue]` tables.
        public init(_ config: DaemonConfig) {
            let location = config.location
            self.init(
                enabled: config.gpsd.enabled, maxHorizontalError: location.maxHorizontalError,
                reportMaxHorizontalError: location.reportMaxHorizontalError, maxAge: location.maxAge, hold: location.hold,
                locateTimeout: location.locateTimeout, follow: location.follow, followDistance: location.followDistance,
                ownTracks: config.ownTracks.enabled && !config.ownTracks.follow.isEmpty, geoclue: config.geoclue)
        }

        /// Whether fixes of `kind` can come: gpsd, OwnTracks' followed device and GeoClue when enabled; a client's `location.report` always.
        public func isEnabled(_ kind: LocationSourceKind) -> Bool {
            switch kind {
            case .gpsd: enabled
            case .owntracks: ownTracks
            case .geoclue: geoclueEnabled
            case .client: true
            }
        }
    }

    private let engine: SearchEngine
    private let clock: DaemonClock
    private let wallClock: @Sendable () -> Date
    private let logger: Logger
    private var settings: Settings
    private var status: GPSStatus
    /// OwnTracks' subscription or HTTP mode is active (`location_sources`' `connected`).
    private var ownTracksConnected = false
    private var fusion: LocationFusion
    /// Each kind's latest fix within its limit, as `location_sources[].last_fix_at` shows it.
    private var lastFixAt: [LocationSourceKind: Date] = [:]
    /// The sources other than gpsd (``GPSStatus``) and clients (always) that are connected now.
    private var connectedSources: Set<LocationSourceKind> = []
    /// A locate from when it entered the stream until it has its fix or gives up.
    private enum Waiter {
        /// Entered, its requester not waiting yet: the next fix is kept for it.
        case entered(LocationSourceKind?)
        case waiting(LocationSourceKind?, CheckedContinuation<LocationFix, any Error>)
        /// Its fix came before its requester waited.
        case fixed(LocationFix)
    }

    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiter: UInt64 = 0
    /// Woken when the fused location's expiry moved (``runExpiry()`` sleeps until it).
    private let expiryChanged = Wakeup()

    public init(
        settings: Settings, engine: SearchEngine, clock: DaemonClock,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.settings = settings
        self.engine = engine
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.status = GPSStatus(enabled: settings.enabled)
        self.fusion = LocationFusion(settings: settings.fusion)
    }

    public var gpsStatus: GPSStatus { status }
    public var isEnabled: Bool { settings.enabled }
    /// The fused location (`state.location`).
    public var location: LocationFix? { fusion.location }
    /// `locate` requests waiting for a fix.
    public var waitingLocates: Int {
        waiters.values.count { if case .fixed = $0 { false } else { true } }
    }

    /// `state.location_sources`: every kind, always.
    public var sources: [LocationSourceStatus] {
        LocationSourceKind.allCases.map { kind in
            LocationSourceStatus(
                kind: kind, enabled: settings.isEnabled(kind), connected: isConnected(kind), lastFixAt: lastFixAt[kind])
        }
    }

    private func isConnected(_ kind: LocationSourceKind) -> Bool {
        switch kind {
        case .gpsd: status.connected
        case .client: true
        case .owntracks: ownTracksConnected
        case .geoclue: connectedSources.contains(kind)
        }
    }

    /// New settings (configuration reload); follow mode's go to the search stream with the state.
    public func update(_ settings: Settings) async {
        self.settings = settings
        status.enabled = settings.enabled
        fusion.settings = settings.fusion
        _ = fusion.expire(now: wallClock())
        expiryChanged.wake()
        await publish()
    }

    // MARK: From the sources

    /// gpsd answered (true) or went away (false).
    public func setConnected(_ connected: Bool) async {
        guard status.connected != connected else { return }
        status.connected = connected
        await publish()
    }

    /// OwnTracks' subscription or HTTP mode became active (true) or not (false).
    public func setOwnTracksConnected(_ connected: Bool) async {
        guard ownTracksConnected != connected else { return }
        ownTracksConnected = connected
        await publish()
    }

    /// A fix of `owntracks.follow`'s device: what became of it.
    @discardableResult
    public func receive(ownTracks fix: LocationFix) async -> LocationFusion.Verdict {
        await take(fix, now: wallClock())
    }

    /// A source other than gpsd is connected (true) or not (false): GeoClue's client started or ended.
    public func setConnected(_ connected: Bool, source kind: LocationSourceKind) async {
        guard kind != .gpsd else { return await setConnected(connected) }
        guard connected != connectedSources.contains(kind) else { return }
        if connected { connectedSources.insert(kind) } else { connectedSources.remove(kind) }
        await publish()
    }

    /// Publishes `state.location_sources` as the settings have it: a source's service calls it when
    /// it starts, so that its entry shows enabled before its first event.
    public func publishSources() async {
        await publish()
    }

    /// One report from gpsd, dated on arrival.
    public func receive(_ report: GPSReport) async {
        let now = wallClock()
        let accepted = settings.filter.accept(report, at: now)
        let counted = report.coordinate != nil || report.mode >= 2
        if counted {
            Counter(label: "weatherd_gps_fixes_total", dimensions: [("accepted", accepted == nil ? "false" : "true")]).increment()
        }
        guard let fix = accepted else {
            if counted { Self.count(.gpsd, accepted: false) }
            return
        }
        status.lastFix = fix
        await take(LocationFix(fix), now: now)
    }

    /// A client's position (`location.report`; `at` nil: now): what became of it.
    public func report(
        coordinate: Coordinate, horizontalError: Double, at: Date? = nil, source: LocationFix.Source = .client
    ) async -> LocationFusion.Verdict {
        let now = wallClock()
        return await take(
            LocationFix(coordinate: coordinate, horizontalError: horizontalError, at: at ?? now, source: source), now: now)
    }

    /// Runs one fix through the rule: answers the locates it is for, publishes the state and
    /// reports the fix to follow mode (taken by a locate, else a new fused location).
    @discardableResult
    private func take(_ fix: LocationFix, now: Date) async -> LocationFusion.Verdict {
        let kind = fix.source.kind
        let decision = fusion.receive(fix, now: now)
        let verdict = decision.verdict ?? .rejected(.tooOld)
        Self.count(kind, accepted: verdict == .accepted)
        // The fix as the rule took it (a time in the future is now).
        var taken = fix
        taken.at = min(fix.at, now)
        var follow: FollowReport.Event?
        if verdict == .accepted || verdict == .rejected(.held) {
            lastFixAt[kind] = taken.at
            // The locates search this fix: follow mode counts it as searched.
            if answerLocates(with: taken, fused: verdict == .accepted) { follow = .located(taken.coordinate) }
        }
        if decision.changed { expiryChanged.wake() }
        if verdict == .accepted, follow == nil { follow = .fused(taken) }
        await publish(follow)
        return verdict
    }

    /// Answers the waiting locates a fix is for: every one without a source when it is the fused
    /// location now, those asking for its kind when it is within its limit. Whether any was.
    private func answerLocates(with fix: LocationFix, fused: Bool) -> Bool {
        var answered = false
        for (id, waiter) in waiters {
            switch waiter {
            case .entered(let source) where source == fix.source.kind || (source == nil && fused):
                waiters[id] = .fixed(fix)
            case .waiting(let source, let continuation) where source == fix.source.kind || (source == nil && fused):
                waiters[id] = nil
                continuation.resume(returning: fix)
            default:
                continue
            }
            answered = true
        }
        return answered
    }

    /// Hands the state of the location input to the engine, with follow mode's settings and `follow`.
    private func publish(_ follow: FollowReport.Event? = nil) async {
        await engine.updateLocation(
            gps: status, location: fusion.location, sources: sources,
            follow: FollowReport(follow: settings.follow, distance: settings.followDistance, follow))
    }

    private static func count(_ kind: LocationSourceKind, accepted: Bool) {
        Counter(
            label: "weatherd_location_fixes_total", dimensions: [("source", kind.rawValue), ("accepted", accepted ? "true" : "false")]
        ).increment()
    }

    /// The machine woke from suspend: in follow mode, the next fused fix is searched even if it
    /// did not move.
    public func resumed() async {
        await publish(.resumed)
    }

    // MARK: Expiry

    /// Drops the fused location when it reaches `location.max_age` (another source's younger fix
    /// takes its place, or none), until cancelled.
    public nonisolated func runExpiry() async {
        await expiryChanged.actWhenDue(on: clock, due: { await self.expiryInstant }) { await self.expire() }
    }

    /// When the fused location reaches `max_age`, on the daemon's clock.
    private var expiryInstant: DaemonClock.Instant? {
        fusion.nextExpiry.map { clock.now.advanced(by: .seconds(max($0.timeIntervalSince(wallClock()), 0))) }
    }

    private func expire() async {
        let decision = fusion.expire(now: wallClock())
        guard decision.changed else { return }
        // Another source's fix is the fused location now: new to follow mode.
        await publish(fusion.location.map { .fused($0) })
    }

    // MARK: locate

    /// A locate that has entered the stream: from then on the next fix for it is its, until its
    /// deadline. ``complete(_:)`` waits for that fix and looks the weather up there; every entered
    /// locate must be completed, once.
    public struct EnteredLocate: Sendable {
        let id: UInt64
        let deadline: DaemonClock.Instant
    }

    /// Enters a locate: it takes the next fused fix after this call (with `source`, the next fix
    /// of that kind within its limit), within `timeout` (default `location.locate_timeout`); with
    /// `maxAge`, a fused fix (of that kind) at most that old answers at once.
    /// - Throws: gps_disabled when `source` is not enabled, or when no fix can answer at once and
    ///   none of the daemon's own sources (gpsd) is enabled.
    public func enterLocate(
        timeout: Duration? = nil, source: LocationSourceKind? = nil, maxAge: Duration? = nil
    ) throws(WeatherError) -> EnteredLocate {
        if let source, !settings.isEnabled(source) {
            throw WeatherError(.gpsDisabled, "the location source \(source.rawValue) is disabled")
        }
        nextWaiter += 1
        let entered = EnteredLocate(id: nextWaiter, deadline: clock.now.advanced(by: timeout ?? settings.locateTimeout))
        // A fused fix that reached location.max_age but was not dropped yet (runExpiry is about to) does not count.
        if let maxAge, let location = fusion.location, source == nil || source == location.source.kind,
            case let age = Duration.seconds(wallClock().timeIntervalSince(location.at)), age <= maxAge, age < settings.fusion.maxAge
        {
            waiters[entered.id] = .fixed(location)
            return entered
        }
        guard source != nil || LocationSourceKind.allCases.contains(where: { $0 != .client && settings.isEnabled($0) }) else {
            throw WeatherError(
                .gpsDisabled,
                "no location source is enabled: gpsd is disabled (gpsd.enabled = false); a location.report answers a locate with max_age, "
                    + "or one with source \"client\"")
        }
        waiters[entered.id] = .entered(source)
        return entered
    }

    /// The weather at the fix of an entered locate.
    /// - Throws: no_fix at its deadline, the lookup's error, or `CancellationError`.
    public func complete(_ locate: EnteredLocate) async throws -> WeatherFeature {
        try await engine.locate(try await fix(of: locate))
    }

    /// The weather at the next fused fix after this call (see ``enterLocate(timeout:source:maxAge:)``).
    /// - Throws: gps_disabled, no_fix after `timeout` (default `location.locate_timeout`), or the lookup's error.
    public func locate(timeout: Duration? = nil, source: LocationSourceKind? = nil, maxAge: Duration? = nil) async throws
        -> WeatherFeature
    {
        try await complete(try enterLocate(timeout: timeout, source: source, maxAge: maxAge))
    }

    /// Waits for the fix of `locate`, until its deadline.
    private func fix(of locate: EnteredLocate) async throws -> LocationFix {
        let source: LocationSourceKind?
        switch waiters[locate.id] {
        case .fixed(let fix)?:
            waiters[locate.id] = nil
            return fix
        case .entered(let kind)?: source = kind
        default: source = nil
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in
                // Ends the wait at the deadline, or at once if the requester goes away.
                try? await clock.sleep(until: locate.deadline)
                await self.expire(locate.id, cancelled: Task.isCancelled)
            }
            defer { group.cancelAll() }
            return try await withCheckedThrowingContinuation { waiters[locate.id] = .waiting(source, $0) }
        }
    }

    private func expire(_ id: UInt64, cancelled: Bool) {
        guard case .waiting(let source, let waiter)? = waiters[id] else { return }
        waiters[id] = nil
        if cancelled {
            waiter.resume(throwing: CancellationError())
        } else if source == nil || source == .gpsd, settings.enabled {
            let detail = status.connected ? "no fix good enough" : "gpsd is not connected"
            waiter.resume(throwing: WeatherError(.noFix, "no accepted location fix before the timeout (\(detail))"))
        } else {
            waiter.resume(throwing: WeatherError(.noFix, "no accepted location fix before the timeout"))
        }
    }

    // MARK: Follow mode

    /// Runs the follow searches the search stream asks for (``SearchStream/Effect/followSearch(_:)``)
    /// one after another until cancelled; a fix asked for while one runs waits, and only the newest
    /// such fix is searched.
    public func runFollow() async {
        for await fix in engine.followSearches.stream {
            do {
                _ = try await engine.locate(fix)
            } catch is CancellationError {
                return
            } catch {
                logger.warning("follow search at \(fix.coordinate) failed: \(error)")
            }
        }
    }
}

extension LocationService: Reconfigurable {
    /// New `[gpsd]`, `[location]` and `[geoclue]` settings apply at once (the reader applies the endpoint itself).
    public func apply(_ change: ConfigChange) async {
        if change.changed(table: "gpsd") || change.changed(table: "location") || change.changed(table: "owntracks")
            || change.changed(table: "geoclue")
        {
            var settings = Settings(change.new)
            settings.geoclueEnabled = self.settings.geoclueEnabled  // geoclue.enabled takes a restart
            await update(settings)
        }
    }
}
