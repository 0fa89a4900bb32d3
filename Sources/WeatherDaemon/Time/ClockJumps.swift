import CLinux
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
