import NIOPosix
import Synchronization
import Testing

@testable import WeatherDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// `EventLoopClock`, the daemon's clock: sleeps on an event loop's timer, which end at their deadline
/// or at once when their task is cancelled; and `DaemonExecutor`, on which the daemon's tasks run.
@Suite(.timeLimit(.minutes(1))) struct EventLoopClockTests {
    let clock = EventLoopClock(loop: MultiThreadedEventLoopGroup.singleton.next())

    @Test func anInstantMovesByTheDurationsItIsGiven() {
        let start = clock.now
        let later = start.advanced(by: .milliseconds(1_500))
        #expect(start.duration(to: later) == .milliseconds(1_500))
        #expect(later.duration(to: start) == .milliseconds(-1_500))
        #expect(start < later)
        #expect(later.advanced(by: .milliseconds(-1_500)) == start)
        #expect(EventLoopClock.bootTime() >= start.sinceBoot)
    }

    @Test func aSleepEndsAtItsDeadlineNotBefore() async throws {
        let deadline = clock.now.advanced(by: .milliseconds(20))
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test func aDeadlinePassedDuringASuspendEndsItsSleepWhenTheTimersAreSetAgain() async throws {
        // A boot-time clock of the test's own: the suspend is a jump of it, which the loop's
        // monotonic timers do not see.
        let boot = Mutex(Duration.seconds(1_000))
        let clock = EventLoopClock(loop: MultiThreadedEventLoopGroup.singleton.next(), sinceBoot: { boot.withLock { $0 } })
        let waiting = clock.now.advanced(by: .seconds(3_600))
        let sleeping = Task { try await clock.sleep(until: waiting) }
        while clock.sleepsUnderWay == 0 { await Task.yield() }
        clock.rearm()  // nothing remains shorter: still asleep
        #expect(clock.sleepsUnderWay == 1)
        boot.withLock { $0 += .seconds(7_200) }  // suspended for two hours
        clock.rearm()  // what the daemon does when the wall clock jumps, as it does on resume
        try await sleeping.value
        #expect(clock.now >= waiting)
    }

    @Test func aSleepUntilAPastDeadlineEndsAtOnce() async throws {
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-5)))
    }

    @Test func aSleepEndsWithCancellationErrorWhenItsTaskIsCancelled() async throws {
        let clock = self.clock
        let sleeping = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(3_600))) }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }

        let begun = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await clock.sleep(until: clock.now.advanced(by: .seconds(3_600))) }
                group.addTask { throw CancellationError() }
                // The first to end throws, which ends the group's body: the group cancels the child
                // that sleeps, and waits for it.
                while try await group.next() != nil {}
            }
        }
        await #expect(throws: CancellationError.self) { try await begun.value }
    }

    @Test func theDaemonsTasksRunOnItsExecutorsThreadsActorHopsAndSleepsIncluded() async throws {
        actor Counter {
            var count = 0
            func add() { count += 1 }
        }
        let counter = Counter()
        let clock = self.clock
        let threadNames = try await withTaskExecutorPreference(DaemonExecutor.shared) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        await counter.add()
                        try await clock.sleep(until: clock.now.advanced(by: .milliseconds(1)))
                        return Self.currentThreadName()
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
        }
        #expect(await counter.count == 50)
        // NIOThreadPool names its threads TP-#0, TP-#1, …; the cooperative pool's have other names.
        #expect(threadNames.allSatisfy { $0.hasPrefix("TP-#") }, "\(threadNames)")
    }

    /// The calling thread's name, from /proc/thread-self/comm.
    private static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
