import Logging

/// Notices that the machine woke from suspend: the boot-time clock (which counts suspended time)
/// ran ahead of the monotonic clock (which does not) by more than `threshold` between two looks.
/// Then the cache forgets answers older than `cache_ttl` in wall time, the watched cities are
/// refreshed at once, and follow mode searches the next accepted fix even if it did not move.
///
/// It looks when `looks` says: each time a signal comes (the daemon: the wall clock jumped, which
/// the kernel also reports on resume, so no periodic wake-up), or every `interval` on the daemon's
/// clock (tests, and the fallback where no such signal can be had). `clocks` reads the boot-time and the monotonic
/// clock (the daemon reads the system's; tests inject them). Cached answers age by the part of the
/// suspend the daemon's clock did not count (all of it on a monotonic clock; none on Linux's
/// `ContinuousClock`, which is the boot-time clock and already ages them).
public struct ResumeDetector: Sendable {
    /// The boot-time clock (counts time suspended) and the monotonic clock (does not), read together.
    public typealias Clocks = @Sendable () -> (boot: Duration, monotonic: Duration)

    /// A suspend shorter than this is not a resume.
    public static let threshold = Duration.seconds(10)
    /// How often the clocks are compared when they are compared periodically.
    public static let interval = Duration.seconds(5)

    /// When the detector looks at the clocks.
    public enum Looks: Sendable {
        /// Every so often on the daemon's clock.
        case every(Duration)
        /// Each time `next` returns true; false ends the detector (it was cancelled, or the signal
        /// is gone).
        case onSignal(next: @Sendable () async -> Bool)
    }

    /// When it looks; `.every(interval)` unless the daemon has a signal.
    public var looks: Looks = .every(ResumeDetector.interval)

    let clock: DaemonClock
    let clocks: Clocks
    let lookups: LookupService
    let refresher: CityRefresher
    let location: LocationService
    let logger: Logger

    public init(
        clock: DaemonClock, clocks: @escaping Clocks, lookups: LookupService,
        refresher: CityRefresher, location: LocationService, logger: Logger
    ) {
        self.clock = clock
        self.clocks = clocks
        self.lookups = lookups
        self.refresher = refresher
        self.location = location
        self.logger = logger
    }

    /// Runs until cancelled.
    public func run() async {
        var last = (clocks: clocks(), daemon: clock.now)
        var deadline = last.daemon
        while !Task.isCancelled {
            switch looks {
            case .every(let interval):
                deadline = deadline.advanced(by: interval)
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
            case .onSignal(let next):
                guard await next() else { return }
            }
            let now = (clocks: clocks(), daemon: clock.now)
            deadline = max(deadline, now.daemon)
            let suspended = (now.clocks.boot - now.clocks.monotonic) - (last.clocks.boot - last.clocks.monotonic)
            let uncounted = (now.clocks.boot - last.clocks.boot) - last.daemon.duration(to: now.daemon)
            last = now
            guard suspended > Self.threshold else { continue }
            logger.notice("resumed after about \(suspended.secondsRoundedUp) s of suspend: refreshing the watched cities")
            if uncounted > .zero { await lookups.resumed(after: uncounted) }
            await location.resumed()
            await refresher.resume()
        }
    }
}
