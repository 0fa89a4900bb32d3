import Testing

@testable import WeatherSessions

@Suite("InputQueueState: a connection's messages on their way to the session, event by event")
struct InputQueueStateTests {
    typealias Queue = InputQueueState<Int, String>

    private struct ReadFailed: Error {}

    private func input(_ next: Queue.Next) -> Int? {
        if case .input(let input) = next { return input }
        return nil
    }

    private func isEnd(_ next: Queue.Next) -> Bool {
        if case .end = next { return true }
        return false
    }

    @Test("messages read before the reader asks wait for it, in order")
    func buffered() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        #expect(q.yield(1) == nil)
        #expect(q.yield(2) == nil)
        #expect(input(q.next().next) == 1)
        #expect(input(q.next().next) == 2)
        if case .none = q.next().next {} else { Issue.record("nothing left: the reader waits") }
    }

    @Test("a waiting reader is resumed by the next message, or by the end, once")
    func waiting() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        if case .none = q.wait("reader", cancelled: false) {} else { Issue.record("the reader waits") }
        #expect(q.yield(1) == "reader")
        #expect(q.yield(2) == nil, "resumed once; the next message is buffered")
        #expect(input(q.next().next) == 2)
        if case .none = q.wait("reader", cancelled: false) {} else { Issue.record("the reader waits") }
        #expect(q.end() == "reader")
        #expect(q.end() == nil)
    }

    @Test("after the end, what was buffered is still read, then the end; later messages are dropped")
    func end() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        _ = q.yield(1)
        _ = q.end(failure: ReadFailed())
        _ = q.yield(2)
        #expect(input(q.next().next) == 1)
        #expect(isEnd(q.next().next))
        #expect(isEnd(q.wait("reader", cancelled: false)))
        #expect(q.failure is ReadFailed)
        _ = q.end()
        #expect(q.failure is ReadFailed, "the first reason stays")
    }

    @Test("a reader cancelled before or while it waits gets the end")
    func cancelled() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        #expect(isEnd(q.wait("reader", cancelled: true)))
        _ = q.wait("reader", cancelled: false)
        #expect(q.cancel() == "reader")
        #expect(q.cancel() == nil)
        #expect(q.yield(1) == nil, "no reader is resumed after its cancellation")
    }

    @Test("reading is held back at maxBuffered waiting messages and goes on once fewer than resumeBelow wait")
    func backPressure() {
        var q = Queue(maxBuffered: 4, resumeBelow: 2)
        _ = q.next()  // the reader has started
        for i in 1...3 { _ = q.yield(i) }
        #expect(q.holdRead() == false)
        _ = q.yield(4)
        #expect(q.holdRead() == true)
        var resumed: [Bool] = []
        for _ in 1...4 { resumed.append(q.next().resumeReading) }
        // 3 left, 2 left, then 1: the held read goes ahead, once.
        #expect(resumed == [false, false, true, false])
    }

    @Test("the transport's first read waits until the reader asks for a message, and then goes ahead, once")
    func firstReadWaitsForReader() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        #expect(q.holdRead() == true, "no reader yet")
        let first = q.next()
        if case .none = first.next {} else { Issue.record("nothing was read yet") }
        #expect(first.resumeReading, "the reader asked: the held read goes ahead")
        #expect(q.next().resumeReading == false)
        #expect(q.holdRead() == false)
    }

    @Test("a connection that ends before its reader starts holds no read back")
    func endBeforeReader() {
        var q = Queue(maxBuffered: 16, resumeBelow: 4)
        #expect(q.holdRead() == true)
        _ = q.end()
        #expect(q.holdRead() == false)
        #expect(isEnd(q.next().next))
    }

    @Test("the end lets a held read go: nothing is held back after it")
    func endReleasesHold() {
        var q = Queue(maxBuffered: 1, resumeBelow: 1)
        _ = q.yield(1)
        #expect(q.holdRead() == true)
        _ = q.end()
        let resumed = q.next().resumeReading
        #expect(!resumed)
    }
}
