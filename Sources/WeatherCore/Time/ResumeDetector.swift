import Logging

/// Notices that the machine woke from suspend: the boot-time clock (which counts suspended time)
/// ran ahead of the monotonic clock (which does not) by more than `threshold` between two looks.
/// Then the cache forgets answers older than `cache_ttl` in wall time, the watched cities are
/// refreshed at once, and follow mode searches the next accepted fix even if it did not move.
///
/// It looks every `interval` on the daemon's clock. `suspendedTime` is how far the boot-time clock
/// is ahead of the monotonic one (the daemon reads both; tests inject it).
public struct ResumeDetector: Sendable {
    /// A suspend shorter than this is not a resume.
    public static let threshold = Duration.seconds(10)
    /// How often the clocks are compared.
    public static let interval = Duration.seconds(5)

    let clock: DaemonClock
    let suspendedTime: @Sendable () -> Duration
    let lookups: LookupService
    let refresher: CityRefresher
    let location: LocationService
    let logger: Logger

    public init(
        clock: DaemonClock, suspendedTime: @escaping @Sendable () -> Duration, lookups: LookupService,
        refresher: CityRefresher, location: LocationService, logger: Logger
    ) {
        self.clock = clock
        self.suspendedTime = suspendedTime
        self.lookups = lookups
        self.refresher = refresher
        self.location = location
        self.logger = logger
    }

    /// Runs until cancelled.
    public func run() async {
        var last = suspendedTime()
        var deadline = clock.now
        while !Task.isCancelled {
            deadline = deadline.advanced(by: Self.interval)
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            deadline = max(deadline, clock.now)
            let now = suspendedTime()
            let suspended = now - last
            last = now
            guard suspended > Self.threshold else { continue }
            logger.notice("resumed after about \(suspended.secondsRoundedUp) s of suspend: refreshing the watched cities")
            await lookups.resumed(after: suspended)
            await location.resumed()
            await refresher.resume()
        }
    }
}
