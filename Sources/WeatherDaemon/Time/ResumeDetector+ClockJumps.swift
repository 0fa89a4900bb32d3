import Logging
import WeatherCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ResumeDetector {
    /// Runs the detector until cancelled (the daemon runs it as a `ClosureService`, ended by graceful
    /// shutdown): it looks at the clocks when the wall clock jumps (``ClockJumps``), which the kernel
    /// also reports on resume: no periodic wake-up. Where no such timer can be made, it looks every
    /// ``ResumeDetector/interval`` instead (logged). Each jump first calls `jumped` (the daemon: its
    /// clock's timers are set again, as a resume ends the sleeps whose deadline passed meanwhile).
    func runOnClockJumps(logger: Logger, jumped: @escaping @Sendable () -> Void = {}) async {
        guard let jumps = ClockJumps() else {
            logger.warning(
                "no timerfd for wall-clock jumps (\(String(cString: strerror(errno)))): looking for a resume from suspend every \(ResumeDetector.interval)"
            )
            await run()
            return
        }
        var signalled = self
        signalled.looks = .onSignal(next: {
            guard await jumps.next() else { return false }
            jumped()
            return true
        })
        await signalled.run()
        await jumps.close()
    }

    /// CLOCK_BOOTTIME (counts time suspended) and CLOCK_MONOTONIC (does not).
    @Sendable static func clocks() -> (boot: Duration, monotonic: Duration) {
        (EventLoopClock.reading(CLOCK_BOOTTIME), EventLoopClock.reading(CLOCK_MONOTONIC))
    }
}
