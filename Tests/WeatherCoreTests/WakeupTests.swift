import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Wakeup", .timeLimit(.minutes(1)))
struct WakeupTests {
    @Test("a wake-up ends a wait before its deadline, with no time passing")
    func wakeEndsWait() async throws {
        let clock = ManualClock()
        let wakeup = Wakeup()
        let waiter = Task { try await wakeup.sleep(until: DaemonClock(clock).now.advanced(by: .seconds(30)), on: DaemonClock(clock)) }
        await clock.waitForSleepers(1)
        wakeup.wake()
        #expect(try await waiter.value == true)
    }

    @Test("the deadline ends a wait that nobody wakes")
    func deadlineEndsWait() async throws {
        let clock = ManualClock()
        let wakeup = Wakeup()
        let waiter = Task { try await wakeup.sleep(until: DaemonClock(clock).now.advanced(by: .seconds(30)), on: DaemonClock(clock)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        #expect(try await waiter.value == false)
    }

    @Test("a wake-up while nobody waits ends the next wait at once; several count as one")
    func wakeIsKept() async throws {
        let clock = DaemonClock(ManualClock())
        let wakeup = Wakeup()
        wakeup.wake()
        wakeup.wake()
        #expect(try await wakeup.sleep(until: clock.now.advanced(by: .seconds(30)), on: clock) == true)
        let next = Task { try await wakeup.sleep(until: nil, on: clock) }
        wakeup.wake()
        #expect(try await next.value == true)
    }

    @Test("cancellation ends a wait without a deadline with CancellationError")
    func cancellation() async throws {
        let wakeup = Wakeup()
        let waiter = Task { try await wakeup.sleep(until: nil, on: DaemonClock(ManualClock())) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
