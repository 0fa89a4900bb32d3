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
    private var waiters: [UInt64: CheckedContinuation<GPSFix, any Error>] = [:]
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
    public var waitingLocates: Int { waiters.count }

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
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting.values { waiter.resume(returning: fix) }
        if !waiting.isEmpty {
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

    /// The weather at the next accepted fix after this call.
    /// - Throws: gps_disabled, no_fix after `timeout` (default `gpsd.locate_timeout`), or the lookup's error.
    /// `admitted` is called once the request waits for its fix.
    public func locate(timeout: Duration? = nil, admitted: @Sendable () -> Void = {}) async throws -> WeatherFeature {
        guard settings.enabled else {
            throw WeatherError(.gpsDisabled, "gpsd is disabled (gpsd.enabled = false)")
        }
        let fix = try await nextFix(timeout: timeout ?? settings.locateTimeout, admitted: admitted)
        return try await engine.locate(fix)
    }

    /// Waits for the next accepted fix, at most `timeout`.
    func nextFix(timeout: Duration, admitted: @Sendable () -> Void = {}) async throws -> GPSFix {
        nextWaiter += 1
        let id = nextWaiter
        let deadline = clock.now.advanced(by: timeout)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in
                // Ends the wait at the deadline, or at once if the requester goes away.
                try? await clock.sleep(until: deadline)
                await self.expire(id, cancelled: Task.isCancelled)
            }
            defer { group.cancelAll() }
            return try await withCheckedThrowingContinuation {
                waiters[id] = $0
                admitted()
            }
        }
    }

    private func expire(_ id: UInt64, cancelled: Bool) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
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
