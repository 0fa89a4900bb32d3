import Testing

@testable import WeatherCore
@testable import WeatherSessions

/// ``OutboxState`` driven event by event: waiters and the writer are names, nothing runs.
@Suite("OutboxState: one client's queue, event by event")
struct OutboxStateTests {
    typealias State = OutboxState<String, String>

    private func outbox(maxReplies: Int = 3, maxReplyBytes: Int = 1000) -> State {
        var state = State(maxReplies: maxReplies, maxReplyBytes: maxReplyBytes)
        _ = state.setWriter("writer")
        state.watch(diff: false)
        return state
    }

    /// Takes lines until nothing (or the end) is left.
    private func takeAll(_ state: inout State) -> [String] {
        var lines: [String] = []
        while case .line(let line) = state.take().taken { lines.append(line) }
        return lines
    }

    private func edition(_ seq: Int) -> OverlaysEdition {
        OverlaysEdition(Overlays(seq: seq, focus: nil, features: []))
    }

    @Test("replies go first, in order; then the newest notification of each topic, in the order offered")
    func order() {
        var s = outbox(maxReplies: 10)
        #expect(s.offer(.state, .line("s1"), version: 1) == "writer")
        #expect(s.send(reply: "r1") == "writer")
        #expect(s.offer(.overlays, .line("o1"), version: 2) == "writer")
        #expect(s.offer(.state, .line("s2"), version: 3) == "writer")
        #expect(s.send(reply: "r2") == "writer")
        #expect(takeAll(&s) == ["r1", "r2", "o1", "s2"])
        if case .none = s.take().taken {} else { Issue.record("an open outbox with nothing queued gives none") }
    }

    @Test(
        "hasMore says whether a take would give more than none: after the last line taken, false; while a hold keeps notifications back, false; once finished, true until the end is taken"
    )
    func hasMore() {
        var s = outbox(maxReplies: 10)
        #expect(!s.hasMore)
        _ = s.send(reply: "r1")
        _ = s.offer(.state, .line("s1"), version: 1)
        #expect(s.hasMore)
        _ = s.take()
        #expect(s.hasMore, "the notification waits")
        _ = s.take()
        #expect(!s.hasMore)
        if case .none = s.take().taken {} else { Issue.record("nothing left: none") }
        s.hold()
        _ = s.offer(.state, .line("s2"), version: 2)
        #expect(!s.hasMore, "held back until the reply of the request that holds it")
        _ = s.release(reply: "r2")
        #expect(s.hasMore)
        #expect(takeAll(&s) == ["r2", "s2"])
        _ = s.finish()
        #expect(s.hasMore, "the end is still to take")
        if case .finished = s.take().taken {} else { Issue.record("then the end") }
    }

    @Test("an older notification offered after a newer one (a publish and a replay crossing) is no news")
    func crossing() {
        var s = outbox()
        #expect(s.offer(.state, .line("new"), version: 5) == "writer")
        #expect(s.offer(.state, .line("old"), version: 4) == nil)
        #expect(s.offer(.state, .line("same"), version: 5) == nil)
        #expect(takeAll(&s) == ["new"])
        // Taken and written already: the older one offered now is still no news.
        #expect(s.offer(.state, .line("old"), version: 4) == nil)
        #expect(takeAll(&s) == [])
    }

    @Test("before watch and after unwatch nothing is taken in; unwatch drops what waits")
    func watching() {
        var s = State(maxReplies: 3, maxReplyBytes: 1000)
        _ = s.setWriter("writer")
        #expect(s.offer(.state, .line("s1"), version: 1) == nil)
        s.watch(diff: false)
        #expect(s.offer(.state, .line("s2"), version: 2) == "writer")
        s.unwatch()
        #expect(takeAll(&s) == [])
        #expect(s.offer(.state, .line("s3"), version: 3) == nil)
        // A new watch starts afresh: any version is news again.
        s.watch(diff: false)
        #expect(s.offer(.state, .line("s0"), version: 1) == "writer")
        #expect(takeAll(&s) == ["s0"])
    }

    @Test("while a watch is held, its replay waits; its reply goes first, then the replay, then later changes")
    func heldWatch() {
        var s = State(maxReplies: 3, maxReplyBytes: 1000)
        _ = s.setWriter("writer")
        s.hold()
        s.watch(diff: false)
        _ = s.offer(.state, .line("replayed"), version: 1)
        // The writer, signalled meanwhile, takes nothing: the reply is not queued yet.
        #expect(takeAll(&s) == [])
        #expect(s.release(reply: "reply") == "writer")
        _ = s.offer(.overlays, .line("changed"), version: 2)
        #expect(takeAll(&s) == ["reply", "replayed", "changed"])
    }

    @Test("an unwatch held until its reply: nothing of the old subscription comes after the reply")
    func heldUnwatch() {
        var s = outbox()
        _ = s.offer(.state, .line("s1"), version: 1)
        s.hold()
        s.unwatch()
        #expect(s.offer(.state, .line("s2"), version: 2) == nil)
        #expect(s.release(reply: "reply") == "writer")
        #expect(takeAll(&s) == ["reply"])
    }

    @Test("two holds: notifications wait for both; a release without a reply signals only the last")
    func twoHolds() {
        var s = outbox()
        s.hold()
        s.hold()
        _ = s.offer(.state, .line("s1"), version: 1)
        #expect(s.release(reply: nil) == nil)
        #expect(takeAll(&s) == [])
        #expect(s.release(reply: nil) == "writer")
        #expect(takeAll(&s) == ["s1"])
        // A client gone meanwhile: nothing to signal.
        s.hold()
        _ = s.close()
        #expect(s.release(reply: "reply") == nil)
    }

    @Test("after finish: replies still queue, notifications do not; the writer takes them, then the end")
    func finish() {
        var s = outbox()
        _ = s.offer(.state, .line("s1"), version: 1)
        #expect(s.finish() == "writer")
        #expect(s.offer(.state, .line("s2"), version: 2) == nil)
        #expect(s.send(reply: "r1") == "writer")
        #expect(takeAll(&s) == ["r1", "s1"])
        if case .finished = s.take().taken {} else { Issue.record("a finished, empty outbox gives the end") }
    }

    @Test("close drops everything, returns the waiting readers and the writer once, and keeps nothing after")
    func close() {
        var s = outbox(maxReplies: 1)
        _ = s.send(reply: "r1")
        _ = s.offer(.state, .line("s1"), version: 1)
        #expect(s.waitForRoom("reader", id: 1, cancelled: false) == .suspend)
        let closing = s.close()
        #expect(closing.waiters == ["reader"])
        #expect(closing.writer == "writer")
        #expect(s.close().writer == nil, "the writer is let go: a second close signals nobody")
        #expect(s.send(reply: "late") == nil)
        #expect(s.offer(.overlays, .line("late"), version: 2) == nil)
        #expect(s.waitForRoom("reader", id: 2, cancelled: false) == .resume(false))
        if case .finished = s.take().taken {} else { Issue.record("a closed outbox gives the end") }
        // A writer set after the close is called once (it then takes the end) and not kept.
        #expect(s.setWriter("late writer") == "late writer")
        #expect(s.finish() == nil)
    }

    @Test("the reader waits once maxReplies replies are queued, and is resumed by the take that makes room")
    func roomByCount() {
        var s = outbox(maxReplies: 2)
        #expect(s.waitForRoom("reader", id: 1, cancelled: false) == .resume(true))
        _ = s.send(reply: "r1")
        _ = s.send(reply: "r2")
        #expect(s.waitForRoom("reader", id: 2, cancelled: false) == .suspend)
        let (taken, resume) = s.take()
        #expect(taken.line == "r1")
        #expect(resume == ["reader"])
        #expect(s.take().resume == [], "resumed once")
    }

    @Test("replies adding up to maxReplyBytes stop the reader too, though fewer than maxReplies wait")
    func roomByBytes() {
        var s = outbox(maxReplies: 64, maxReplyBytes: 10)
        _ = s.send(reply: "0123456789")
        #expect(s.waitForRoom("reader", id: 1, cancelled: false) == .suspend)
        #expect(s.take().resume == ["reader"])
    }

    @Test("a cancelled reader: refused at once if already cancelled; cancelled while waiting, resumed once")
    func cancelled() {
        var s = outbox(maxReplies: 1)
        #expect(s.waitForRoom("reader", id: 1, cancelled: true) == .resume(false))
        _ = s.send(reply: "r1")
        #expect(s.waitForRoom("reader", id: 2, cancelled: false) == .suspend)
        #expect(s.cancelWait(2) == "reader")
        #expect(s.cancelWait(2) == nil)
        #expect(s.take().resume == [], "a cancelled wait is not resumed again")
        // Resumed by a take first, then its cancellation comes: nothing is left to resume.
        _ = s.send(reply: "r2")
        #expect(s.waitForRoom("reader", id: 3, cancelled: false) == .suspend)
        #expect(s.take().resume == ["reader"])
        #expect(s.cancelWait(3) == nil)
    }

    @Test("once finished, a reader waiting for room goes on: nothing more will be queued by it")
    func roomWhenFinished() {
        var s = outbox(maxReplies: 1)
        _ = s.send(reply: "r1")
        _ = s.finish()
        #expect(s.waitForRoom("reader", id: 1, cancelled: false) == .resume(true))
    }

    @Test("a diff watcher's overlays carry the last collection written as their base; a watch between take and write resets it")
    func diffBase() {
        var s = State(maxReplies: 3, maxReplyBytes: 1000)
        s.watch(diff: true)
        let first = edition(1)
        _ = s.offer(.overlays, .overlays(first), version: 1)
        guard case .overlays(let taken, diff: true, base: nil, let subscription) = s.take().taken else {
            Issue.record("the first overlays after watch have no base")
            return
        }
        s.delivered(taken, subscription: subscription)
        _ = s.offer(.overlays, .overlays(edition(2)), version: 2)
        guard case .overlays(_, diff: true, base: let base?, let second) = s.take().taken else {
            Issue.record("the next overlays have the first as their base")
            return
        }
        #expect(base.overlays.seq == 1)
        // A new watch comes while the line is made: that collection is not the new base.
        s.watch(diff: true)
        s.delivered(edition(2), subscription: second)
        _ = s.offer(.overlays, .overlays(edition(3)), version: 3)
        guard case .overlays(_, diff: true, base: nil, _) = s.take().taken else {
            Issue.record("after a new watch the first overlays are full again")
            return
        }
    }
}

extension OutboxState.Taken {
    fileprivate var line: String? {
        if case .line(let line) = self { return line }
        return nil
    }
}

extension OutboxState.RoomAction: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.suspend, .suspend): true
        case (.resume(let x), .resume(let y)): x == y
        default: false
        }
    }
}
