import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's clock: the boot-time clock (`CLOCK_BOOTTIME`, which counts time suspended, as
/// Swift's `ContinuousClock` does on Linux), with sleeps on an event loop's timers.
///
/// A sleep on Swift's own clocks goes to Swift's default executor, libdispatch's global queues,
/// whichever executor the task prefers; their first job starts a monitor that wakes the process
/// every second from then on (see `DaemonExecutor`). A sleep here ends through the task's own
/// executor, and an idle daemon waits in `epoll_wait`.
///
/// An event loop's timers run on the monotonic clock, which stops while the machine is suspended:
/// `rearm()` (called when the wall clock jumps, which the kernel also reports on resume) sets every
/// sleep's timer again from the boot-time clock, so that a deadline passed during a suspend ends
/// its sleep at the resume.
struct EventLoopClock: Clock {
    struct Instant: InstantProtocol {
        /// Since boot, time suspended included.
        var sinceBoot: Duration

        func advanced(by duration: Duration) -> Instant { Instant(sinceBoot: sinceBoot + duration) }
        func duration(to other: Instant) -> Duration { other.sinceBoot - sinceBoot }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.sinceBoot < rhs.sinceBoot }
    }

    private let sleeps: Sleeps

    /// Sleeps on `loop`'s timers; `sinceBoot` reads the clock (tests: a clock of their own).
    init(loop: any EventLoop, sinceBoot: @escaping @Sendable () -> Duration = EventLoopClock.bootTime) {
        sleeps = Sleeps(loop: loop, sinceBoot: sinceBoot)
    }

    var now: Instant { Instant(sinceBoot: sleeps.sinceBoot()) }

    var minimumResolution: Duration { .nanoseconds(1) }

    /// Ends at `deadline`, or with `CancellationError` as soon as the task is cancelled. The
    /// tolerance is not used.
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleeps.sleep(until: deadline.sinceBoot)
    }

    /// Sets every sleep's timer again from the boot-time clock: after a resume from suspend, the
    /// sleeps whose deadline passed meanwhile end now.
    func rearm() {
        sleeps.rearm()
    }

    /// How many sleeps are under way (for tests).
    var sleepsUnderWay: Int { sleeps.count }

    /// `CLOCK_BOOTTIME`.
    @Sendable static func bootTime() -> Duration { reading(CLOCK_BOOTTIME) }

    /// The time of the system's clock `id` (`clock_gettime`).
    static func reading(_ id: clockid_t) -> Duration {
        var time = timespec()
        clock_gettime(id, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    /// The sleeps under way, each with its deadline, the promise its task waits for, and its timer.
    private final class Sleeps: Sendable {
        private struct Sleep {
            var deadline: Duration
            var promise: EventLoopPromise<Void>
            var timer: Scheduled<Void>?
        }

        let loop: any EventLoop
        let sinceBoot: @Sendable () -> Duration
        private let state = Mutex<(nextID: UInt64, sleeps: [UInt64: Sleep])>((0, [:]))

        init(loop: any EventLoop, sinceBoot: @escaping @Sendable () -> Duration) {
            self.loop = loop
            self.sinceBoot = sinceBoot
        }

        func sleep(until deadline: Duration) async throws {
            try Task.checkCancellation()
            let promise = loop.makePromise(of: Void.self)
            let id = state.withLock { state in
                defer { state.nextID += 1 }
                state.sleeps[state.nextID] = Sleep(deadline: deadline, promise: promise)
                return state.nextID
            }
            arm(id)
            try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                self.finish(id, cancelled: true)
            }
        }

        var count: Int { state.withLock { $0.sleeps.count } }

        func rearm() {
            for id in state.withLock({ Array($0.sleeps.keys) }) { arm(id) }
        }

        /// Sets sleep `id`'s timer for what remains until its deadline (replacing any), or ends it
        /// when nothing remains.
        private func arm(_ id: UInt64) {
            guard let deadline = state.withLock({ $0.sleeps[id]?.deadline }) else { return }
            let remaining = deadline - sinceBoot()
            guard remaining > .zero else { return finish(id, cancelled: false) }
            let timer = loop.scheduleTask(in: TimeAmount(remaining)) { self.arm(id) }
            let (stored, replaced) = state.withLock { state -> (Bool, Scheduled<Void>?) in
                guard let old = state.sleeps[id] else { return (false, nil) }
                state.sleeps[id]?.timer = timer
                return (true, old.timer)
            }
            if stored {
                replaced?.cancel()  // nothing when it is the timer that fired
            } else {
                timer.cancel()  // the sleep ended meanwhile
            }
        }

        /// Ends sleep `id` once (the first call; any later one finds it gone).
        private func finish(_ id: UInt64, cancelled: Bool) {
            guard let sleep = state.withLock({ $0.sleeps.removeValue(forKey: id) }) else { return }
            sleep.timer?.cancel()
            if cancelled {
                sleep.promise.fail(CancellationError())
            } else {
                sleep.promise.succeed()
            }
        }
    }
}
