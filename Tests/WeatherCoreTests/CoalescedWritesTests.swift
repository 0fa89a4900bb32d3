import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("CoalescedWrites: when a state file is written, event by event")
struct CoalescedWritesTests {
    @Test("a request with none under way starts a writer; it covers what was asked for before it began")
    func one() {
        var writes = CoalescedWrites()
        #expect(writes.request() == (1, true))
        #expect(writes.began() == 1)
        #expect(writes.finished() == (1, false))
        #expect(!writes.active && writes.written == 1)
    }

    @Test("a burst before the write begins is that one write")
    func burstBeforeBegin() {
        var writes = CoalescedWrites()
        #expect(writes.request() == (1, true))
        for n in 2...100 { #expect(writes.request() == (n, false)) }
        #expect(writes.began() == 100)
        #expect(writes.finished() == (100, false))
    }

    @Test("a burst during a write is one more write, after it, covering them all")
    func burstDuringWrite() {
        var writes = CoalescedWrites()
        _ = writes.request()
        #expect(writes.began() == 1)
        for n in 2...50 { #expect(writes.request() == (n, false), "the writer is active: none started") }
        #expect(writes.finished() == (1, true))
        #expect(writes.began() == 50)
        #expect(writes.request() == (51, false))
        #expect(writes.finished() == (50, true))
        #expect(writes.began() == 51)
        #expect(writes.finished() == (51, false))
        #expect(writes.request() == (52, true), "idle again: the next request starts a writer")
    }
}

@Suite("Turns: one at a time, in the order asked", .timeLimit(.minutes(1)))
struct TurnsTests {
    @Test("the turn goes to the waiting in the order they asked; a cancelled wait gets none and ends")
    func order() async {
        let turns = Turns()
        let order = Observed<[Int]>([])
        #expect(await turns.take())
        var waiting: [Task<Bool, Never>] = []
        for n in 1...3 {
            waiting.append(
                Task {
                    guard await turns.take() else { return false }
                    order.update { $0.append(n) }
                    turns.give()
                    return true
                })
            while turns.waitingCount < n { await Task.yield() }  // it waits: the next asks after it
        }
        let cancelled = Task { await turns.take() }
        while turns.waitingCount < 4 { await Task.yield() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(turns.waitingCount == 3)
        turns.give()
        for task in waiting { #expect(await task.value) }
        #expect(order.value == [1, 2, 3])
        #expect(await turns.take(), "free again")
    }

    @Test("a wait cancelled before it began gets no turn")
    func cancelledFirst() async {
        let turns = Turns()
        #expect(await turns.take())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await turns.take()
        }
        #expect(await task.value == false)
        turns.give()
        #expect(await turns.take())
    }
}
