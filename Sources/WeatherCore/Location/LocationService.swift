import CoreMetrics
import Foundation
import Logging

/// The location input of the search stream: takes gpsd's reports from the reader, keeps
/// `state.gps` true, answers `locate` with the next accepted fix, and in follow mode turns
/// accepted fixes that moved far enough into searches.
public actor LocationService {
    /// The `[gpsd]` settings this service uses.
    public struct Settings: Sendable, Equatable {
        public var enabled: Bool
        public var filter: FixFilter
        public var locateTimeout: Duration
        public var follow: Bool
        public var followDistance: Double

        public init(enabled: Bool, maxHorizontalError: Double, locateTimeout: Duration, follow: Bool, followDistance: Double) {
            self.enabled = enabled
            self.filter = FixFilter(maxHorizontalError: maxHorizontalError)
            self.locateTimeout = locateTimeout
            self.follow = follow
            self.followDistance = followDistance
        }

        /// The settings of the `[gpsd]` table.
        public init(_ config: GPSDConfig) {
            self.init(
                enabled: config.enabled, maxHorizontalError: config.maxHorizontalError, locateTimeout: config.locateTimeout,
                follow: config.follow, followDistance: config.followDistance)
        }
    }

    private let engine: SearchEngine
    private let clock: DaemonClock
    private let wallClock: @Sendable () -> Date
    private let logger: Logger
    private var settings: Settings
    private var status: GPSStatus
    private var follow: FollowPolicy
    /// A locate from when it entered the stream until it has its fix or gives up.
    private enum Waiter {
        /// Entered, its requester not waiting yet: the next fix is kept for it.
        case entered
        case waiting(CheckedContinuation<GPSFix, any Error>)
        /// Its fix came before its requester waited.
        case fixed(GPSFix)
    }

    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiter: UInt64 = 0
    private let followFixes: AsyncStream<GPSFix>
    private let followContinuation: AsyncStream<GPSFix>.Continuation

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
        self.follow = FollowPolicy(distance: settings.followDistance)
        // Follow searches never queue up: only the newest waiting fix counts.
        (followFixes, followContinuation) = AsyncStream.makeStream(of: GPSFix.self, bufferingPolicy: .bufferingNewest(1))
    }

    public var gpsStatus: GPSStatus { status }
    public var isEnabled: Bool { settings.enabled }
    /// `locate` requests waiting for a fix.
    public var waitingLocates: Int {
        waiters.values.count { if case .fixed = $0 { false } else { true } }
    }

    /// New settings (configuration reload).
    public func update(_ settings: Settings) async {
        self.settings = settings
        follow.distance = settings.followDistance
        status.enabled = settings.enabled
        await engine.updateGPS(status)
    }

    // MARK: From the reader

    /// gpsd answered (true) or went away (false).
    public func setConnected(_ connected: Bool) async {
        guard status.connected != connected else { return }
        status.connected = connected
        await engine.updateGPS(status)
    }

    /// One report from gpsd.
    public func receive(_ report: GPSReport) async {
        let accepted = settings.filter.accept(report, at: wallClock())
        if report.coordinate != nil || report.mode >= 2 {
            Counter(label: "weatherd_gps_fixes_total", dimensions: [("accepted", accepted == nil ? "false" : "true")]).increment()
        }
        guard let fix = accepted else { return }
        status.lastFix = fix
        await engine.updateGPS(status)
        var answered = false
        for (id, waiter) in waiters {
            switch waiter {
            case .entered:
                waiters[id] = .fixed(fix)
            case .waiting(let continuation):
                waiters[id] = nil
                continuation.resume(returning: fix)
            case .fixed:
                continue
            }
            answered = true
        }
        if answered {
            // The waiting locates search this fix: follow mode counts it as searched.
            follow.searched(fix.coordinate)
        } else if settings.follow, follow.shouldSearch(fix) {
            followContinuation.yield(fix)
        }
    }

    /// The machine woke from suspend: in follow mode, the next accepted fix is searched even if it
    /// did not move.
    public func resumed() {
        follow.forget()
    }

    // MARK: locate

    /// A locate that has entered the stream: from then on the next accepted fix is its, until its
    /// deadline. ``complete(_:)`` waits for that fix and looks the weather up there; every entered
    /// locate must be completed, once.
    public struct EnteredLocate: Sendable {
        let id: UInt64
        let deadline: DaemonClock.Instant
    }

    /// Enters a locate: it takes the next accepted fix after this call, within `timeout` (default
    /// `gpsd.locate_timeout`).
    /// - Throws: gps_disabled.
    public func enterLocate(timeout: Duration? = nil) throws(WeatherError) -> EnteredLocate {
        guard settings.enabled else {
            throw WeatherError(.gpsDisabled, "gpsd is disabled (gpsd.enabled = false)")
        }
        nextWaiter += 1
        waiters[nextWaiter] = .entered
        return EnteredLocate(id: nextWaiter, deadline: clock.now.advanced(by: timeout ?? settings.locateTimeout))
    }

    /// The weather at the fix of an entered locate.
    /// - Throws: no_fix at its deadline, the lookup's error, or `CancellationError`.
    public func complete(_ locate: EnteredLocate) async throws -> WeatherFeature {
        try await engine.locate(try await fix(of: locate))
    }

    /// The weather at the next accepted fix after this call.
    /// - Throws: gps_disabled, no_fix after `timeout` (default `gpsd.locate_timeout`), or the lookup's error.
    public func locate(timeout: Duration? = nil) async throws -> WeatherFeature {
        try await complete(try enterLocate(timeout: timeout))
    }

    /// Waits for the fix of `locate`, until its deadline.
    private func fix(of locate: EnteredLocate) async throws -> GPSFix {
        if case .fixed(let fix)? = waiters[locate.id] {
            waiters[locate.id] = nil
            return fix
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in
                // Ends the wait at the deadline, or at once if the requester goes away.
                try? await clock.sleep(until: locate.deadline)
                await self.expire(locate.id, cancelled: Task.isCancelled)
            }
            defer { group.cancelAll() }
            return try await withCheckedThrowingContinuation { waiters[locate.id] = .waiting($0) }
        }
    }

    private func expire(_ id: UInt64, cancelled: Bool) {
        guard case .waiting(let waiter)? = waiters[id] else { return }
        waiters[id] = nil
        if cancelled {
            waiter.resume(throwing: CancellationError())
        } else {
            let detail = status.connected ? "no fix good enough" : "gpsd is not connected"
            waiter.resume(throwing: WeatherError(.noFix, "no accepted gpsd fix before the timeout (\(detail))"))
        }
    }

    // MARK: Follow mode

    /// Runs follow searches one after another until cancelled; a fix that arrives while one runs
    /// waits, and only the newest such fix is searched.
    public func runFollow() async {
        for await fix in followFixes {
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
    /// New `[gpsd]` settings apply at once (the reader applies the endpoint itself).
    public func apply(_ change: ConfigChange) async {
        if change.changed(table: "gpsd") { await update(Settings(change.new.gpsd)) }
    }
}
