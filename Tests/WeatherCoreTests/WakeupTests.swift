import Synchronization
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

    @Test("actWhenDue: acts at the due time and when woken, reading the due time again each round; cancellation ends it")
    func timerLoop() async throws {
        let manual = ManualClock()
        let clock = DaemonClock(manual)
        let wakeup = Wakeup()
        // The due time each round reads, then what each action sets it to (the work done).
        let due = Mutex<DaemonClock.Instant?>(clock.now.advanced(by: .seconds(10)))
        let (acted, act) = AsyncStream.makeStream(of: Duration.self)
        let loop = Task {
            await wakeup.actWhenDue(on: clock, due: { due.withLock { $0 } }) {
                act.yield(clock.now.offset)
                due.withLock { $0 = $0 == nil ? clock.now.advanced(by: .seconds(30)) : nil }
            }
        }
        var actions = acted.makeAsyncIterator()
        await manual.waitForSleepers(1)
        #expect(manual.sleeperCount == 1)
        manual.advance(by: .seconds(10))
        #expect(await actions.next() == .seconds(10), "at the due time")
        // Nothing due now: it waits for a wake-up alone, then acts.
        wakeup.wake()
        #expect(await actions.next() == .seconds(10), "woken, no time passing")
        await manual.waitForSleepers(1)  // due in 30 s
        loop.cancel()
        await loop.value
        act.finish()
        #expect(await actions.next() == nil, "no action after cancellation")
    }

    @Test("cancellation ends a wait without a deadline with CancellationError")
    func cancellation() async throws {
        let wakeup = Wakeup()
        let waiter = Task { try await wakeup.sleep(until: nil, on: DaemonClock(ManualClock())) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}

@Suite("WakeupState, event by event")
struct WakeupStateTests {
    @Test("a wake-up with nobody waiting is kept for the next wait, several as one")
    func kept() {
        var state = WakeupState<String>()
        #expect(state.wake().isEmpty)
        #expect(state.wake().isEmpty)
        guard case .resume(true) = state.wait("a", id: 1, cancelled: false) else { return #expect(Bool(false)) }
        guard case .suspend = state.wait("b", id: 2, cancelled: false) else { return #expect(Bool(false)) }
        #expect(state.wake() == ["b"])
    }

    @Test("a cancelled task's wait ends at once with false; a kept wake-up still wins")
    func cancelledAtOnce() {
        var state = WakeupState<String>()
        guard case .resume(false) = state.wait("a", id: 3, cancelled: true) else { return #expect(Bool(false)) }
        _ = state.wake()
        guard case .resume(true) = state.wait("b", id: 4, cancelled: true) else { return #expect(Bool(false)) }
    }

    @Test("a second waiter is served: a wake-up ends both; neither is dropped")
    func secondWaiter() {
        var state = WakeupState<String>()
        let first: UInt64 = 1
        let second: UInt64 = 2
        guard case .suspend = state.wait("first", id: first, cancelled: false),
            case .suspend = state.wait("second", id: second, cancelled: false)
        else { return #expect(Bool(false)) }
        #expect(state.waiting == 2)
        #expect(state.wake() == ["first", "second"])
        #expect(state.waiting == 0)
        #expect(state.wake().isEmpty, "kept for the next wait")
    }

    @Test("cancelling one wait resumes that waiter only, whichever of two it is, once")
    func cancelOne() {
        var state = WakeupState<String>()
        let first: UInt64 = 1
        let second: UInt64 = 2
        _ = state.wait("first", id: first, cancelled: false)
        _ = state.wait("second", id: second, cancelled: false)
        #expect(state.cancel(second) == "second")
        #expect(state.cancel(second) == nil, "once")
        #expect(state.wake() == ["first"])
        #expect(state.cancel(first) == nil, "already woken: its cancellation resumes nothing")
    }

    @Test("a cancellation that comes before its wait registers resumes nothing, and the wait ends at once")
    func cancelBeforeWait() {
        var state = WakeupState<String>()
        let id: UInt64 = 7
        #expect(state.cancel(id) == nil)
        guard case .resume(false) = state.wait("a", id: id, cancelled: true) else { return #expect(Bool(false)) }
        #expect(state.waiting == 0)
    }
}

@Suite("Wakeup: two waiters", .timeLimit(.minutes(1)))
struct WakeupTwoWaitersTests {
    @Test("two tasks wait on one Wakeup: one wake-up ends both")
    func bothServed() async {
        let wakeup = Wakeup()
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await wakeup.wait() }
            group.addTask { await wakeup.wait() }
            // Wake until both have ended: a wake-up before a task waits is kept for it.
            var ended: [Bool] = []
            while ended.count < 2 {
                wakeup.wake()
                if let result = await group.next() { ended.append(result) }
            }
            #expect(ended == [true, true])
        }
    }
}
