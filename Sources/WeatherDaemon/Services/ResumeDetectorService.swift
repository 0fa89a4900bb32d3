import CLinux
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeatherCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs the resume detector (a wake from suspend refreshes at once); it stops at graceful shutdown.
///
/// The detector looks at the clocks when the wall clock jumps (``ClockJumps``), which the kernel also
/// reports on resume: no periodic wake-up. Where no such timer can be made, it looks every
/// ``ResumeDetector/interval`` instead (logged).
struct ResumeDetectorService: Service, CustomStringConvertible {
    let detector: ResumeDetector
    let logger: Logger
    var description: String { "ResumeDetector" }

    func run() async throws {
        guard let jumps = ClockJumps() else {
            logger.warning(
                "no timerfd for wall-clock jumps (\(String(cString: strerror(errno)))): looking for a resume from suspend every \(ResumeDetector.interval)"
            )
            await cancelWhenGracefulShutdown { await detector.run() }
            return
        }
        var signalled = detector
        signalled.looks = .onSignal(next: { await jumps.next() })
        await cancelWhenGracefulShutdown { [signalled] in await signalled.run() }
        await jumps.close()
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

/// Tells when the wall clock jumped: set by hand, stepped by NTP, or on resume from suspend (the
/// kernel treats a resume like a clock set). A `CLOCK_REALTIME` timerfd with
/// `TFD_TIMER_CANCEL_ON_SET`, waited for on a thread of its own without a timeout; cancelling the
/// waiting task ends the wait through an eventfd.
final class ClockJumps: Sendable {
    private let timer: Int32
    private let wake: WakeFD
    private let thread: NIOThreadPool
    /// Waits begun on the thread (for tests: a wait is under way once this grew).
    let waitsBegun = Atomic<Int>(0)

    /// nil (errno set) when the timerfd or the eventfd cannot be made.
    init?() {
        let timer = weatherd_clock_jump_fd()
        guard timer >= 0 else { return nil }
        let wake = WakeFD()
        guard wake.isValid else {
            let saved = errno
            Glibc.close(timer)
            errno = saved
            return nil
        }
        self.timer = timer
        self.wake = wake
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Waits until the wall clock jumps (true) or the task is cancelled (false). False also when
    /// the wait fails, which it does not in practice (the timer could not be armed again).
    func next() async -> Bool {
        let (timer, wake) = (self.timer, self.wake)
        while !Task.isCancelled {
            let woken = await withTaskCancellationHandler {
                (try? await thread.runIfActive { () -> Int32 in
                    self.waitsBegun.add(1, ordering: .relaxed)
                    return weatherd_clock_jump_wait(timer, wake.fd)
                }) ?? -1
            } onCancel: {
                wake.signal()
            }
            if woken != 0 { return woken > 0 }
        }
        return false
    }

    /// Stops the thread; call once no `next()` runs.
    func close() async {
        try? await thread.shutdownGracefully()
    }

    deinit {
        Glibc.close(timer)
    }
}
