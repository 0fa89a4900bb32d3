#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ServiceLifecycle
import WeatherCore

/// Runs the resume detector (a wake from suspend refreshes at once); it stops at graceful shutdown.
struct ResumeDetectorService: Service, CustomStringConvertible {
    let detector: ResumeDetector
    var description: String { "ResumeDetector" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await detector.run() }
    }

    /// CLOCK_BOOTTIME (counts time suspended) and CLOCK_MONOTONIC (does not).
    @Sendable static func clocks() -> (boot: Duration, monotonic: Duration) {
        var boot = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return (duration(boot), duration(monotonic))
    }

    private static func duration(_ time: timespec) -> Duration {
        .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}
