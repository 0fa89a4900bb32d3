import Testing

@testable import TestSupport

/// `ProcessSlotsState`: how many tests run child processes at once, event by event.
@Suite("test support: process slots") struct ProcessSlotsTests {
    private let a = ProcessSlotHolder.alone(-1)
    private let b = ProcessSlotHolder.alone(-2)
    private let c = ProcessSlotHolder.alone(-3)

    @Test func testsStartWhileSlotsAreFreeAndThenWait() {
        var state = ProcessSlotsState(capacity: 2)

        #expect(state.acquire(1, for: a) == .start)
        #expect(state.acquire(2, for: b) == .start)
        #expect(state.acquire(3, for: c) == .wait)
        #expect(state.holders == [a: 1, b: 1])
    }

    @Test func aTestThatHoldsASlotStartsMoreProcessesWithoutWaiting() {
        var state = ProcessSlotsState(capacity: 1)
        #expect(state.acquire(1, for: a) == .start)
        #expect(state.acquire(2, for: b) == .wait)

        #expect(state.acquire(3, for: a) == .start, "a test holding a slot never waits for another: no deadlock")
        #expect(state.holders == [a: 2])
    }

    @Test func theSlotIsFreeOnceTheLastProcessOfItsTestEnded() {
        var state = ProcessSlotsState(capacity: 1)
        _ = state.acquire(1, for: a)
        _ = state.acquire(2, for: a)
        _ = state.acquire(3, for: b)

        #expect(state.released(by: a) == [], "one of a's processes still runs")
        #expect(state.released(by: a) == [3])
        #expect(state.holders == [b: 1])
        #expect(state.waiting.isEmpty)
    }

    @Test func waitersAreAdmittedInOrderAndTheirTestsLaterProcessesWithThem() {
        var state = ProcessSlotsState(capacity: 1)
        _ = state.acquire(1, for: a)
        #expect(state.acquire(2, for: b) == .wait)
        #expect(state.acquire(3, for: c) == .wait)
        #expect(state.acquire(4, for: b) == .wait)

        #expect(state.released(by: a) == [2, 4], "b's two processes, not c's: c came after b")
        #expect(state.holders == [b: 2])
        #expect(state.waiting.map(\.id) == [3])
    }

    @Test func aNewTestDoesNotOvertakeThoseWaiting() {
        var state = ProcessSlotsState(capacity: 1)
        _ = state.acquire(1, for: a)
        _ = state.acquire(2, for: b)
        _ = state.released(by: a)

        #expect(state.acquire(3, for: c) == .wait)
        #expect(state.released(by: b) == [3])
    }

    @Test func aCancelledWaiterLeavesTheQueueAndAnAdmittedOneKeepsItsSlot() {
        var state = ProcessSlotsState(capacity: 1)
        _ = state.acquire(1, for: a)
        _ = state.acquire(2, for: b)
        _ = state.acquire(3, for: c)

        let waiting = state.cancelled(2)
        #expect(waiting)
        #expect(state.released(by: a) == [3])
        let admitted = !state.cancelled(3)
        #expect(admitted, "admitted already: it holds its slot")
        #expect(state.holders == [c: 1])
    }

    @Test func aReleaseByAHolderWithoutASlotChangesNothing() {
        var state = ProcessSlotsState(capacity: 1)
        _ = state.acquire(1, for: a)

        #expect(state.released(by: b) == [])
        #expect(state.holders == [a: 1])
    }

    @Test func theProcessesOfOneTestShareItsSlotThroughTheSharedSlots() async throws {
        let slots = ProcessSlots(capacity: 1)
        let first = try await slots.acquire()
        let second = try await slots.acquire()  // this test's again: it does not wait

        second.release()
        second.release()  // once only
        first.release()
        let again = try await slots.acquire(for: b)
        again.release()
    }

    @Test func aWaiterIsResumedWhenTheSlotIsGivenBackAndACancelledOneThrows() async throws {
        let slots = ProcessSlots(capacity: 1)
        let held = try await slots.acquire(for: a)
        let cancelled = Task { try await slots.acquire(for: b) }
        let waiting = Task { try await slots.acquire(for: c) }

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        held.release()
        let admitted = try await waiting.value
        admitted.release()
    }
}
