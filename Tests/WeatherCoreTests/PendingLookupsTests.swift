import Testing

@testable import WeatherCore

@Suite("PendingLookups: each lookup settled once, the last with its input's outcome")
struct PendingLookupsTests {
    @Test("answers settle one by one, but the last stays counted until the run closes")
    func lastStays() {
        var pending = PendingLookups()
        let run = pending.open(3)
        #expect(pending.total == 3)
        pending.settle(run)
        pending.settle(run)
        #expect(pending.total == 1)
        pending.settle(run)
        #expect(pending.total == 1, "the last answer is counted until the outcome goes out")
        pending.close(run)
        #expect(pending.total == 0)
    }

    @Test("closing settles what is left once; a second close, or settling after it, changes nothing")
    func closeOnce() {
        var pending = PendingLookups()
        let a = pending.open(4)
        let b = pending.open(1)
        pending.settle(a, 2)
        pending.close(a)
        #expect(pending.total == 1)
        pending.close(a)
        pending.settle(a, 5)
        #expect(pending.total == 1)
        pending.close(b)
        #expect(pending.total == 0)
    }

    @Test("dropping more than are left settles all but the last")
    func dropMany() {
        var pending = PendingLookups()
        let run = pending.open(5)
        pending.settle(run, 10)
        #expect(pending.total == 1)
    }

    @Test("a run resized before it began counts its new number; an empty run counts nothing")
    func resize() {
        var pending = PendingLookups()
        let run = pending.open(2)
        pending.resize(run, to: 5)
        #expect(pending.total == 5)
        pending.resize(run, to: 0)
        #expect(pending.total == 0)
        pending.settle(run)
        pending.close(run)
        #expect(pending.total == 0)
    }
}
