import Foundation
import Testing

@testable import WeatherCore
@testable import WeatherSessions

@Suite("Outbox and NotificationHub", .timeLimit(.minutes(1)))
struct OutboxTests {
    private func overlays(_ seq: Int) -> Overlays { Overlays(seq: seq, focus: nil, features: []) }

    private func state(_ pending: Int) -> DaemonState {
        DaemonState(
            pending: pending, phase: .loading, input: nil, gps: GPSStatus(enabled: false),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("after 1000 publishes a watcher that did not read gets at most 1 overlays and 1 state, the newest")
    func bounded() throws {
        let hub = NotificationHub()
        let outbox = Outbox.watching()
        hub.watch(outbox, topics: [.overlays, .state], replay: false)
        for i in 1...1000 {
            hub.publish(overlays: overlays(i))
            hub.publish(state: state(i))
        }
        var lines: [JSONValue] = []
        while let line = outbox.next() { lines.append(try JSONValue.parse(Array(line.utf8))) }
        #expect(lines.count == 2)
        #expect(lines.map { $0["method"] } == ["overlays", "state"])
        #expect(lines[0]["params"]?["seq"] == .integer(1000))
        #expect(lines[1]["params"]?["pending"] == .integer(1000))
    }

    @Test("takeWithMore: each line with whether another take would give more; the overlays line made as take makes it")
    func takeWithMore() throws {
        let hub = NotificationHub()
        let outbox = Outbox.watching()
        hub.watch(outbox, topics: [.overlays, .state], replay: false)
        outbox.send(reply: "r1")
        hub.publish(overlays: overlays(3))
        var taken: [(String, Bool)] = []
        while case (.line(let line), let more) = outbox.takeWithMore() { taken.append((line, more)) }
        #expect(taken.map(\.0) == ["r1", RPCMessage.notification(method: "overlays", params: overlays(3).json)])
        #expect(taken.map(\.1) == [true, false])
        if case (.none, false) = outbox.takeWithMore() {} else { Issue.record("nothing left: none, and no more") }
    }

    @Test("replies are sent before notifications, in order, and are never dropped")
    func repliesFirst() {
        let outbox = Outbox.watching()
        outbox.offer(.state, line: "s1")
        outbox.send(reply: "r1")
        outbox.offer(.overlays, line: "o1")
        outbox.send(reply: "r2")
        outbox.offer(.state, line: "s2")
        var lines: [String] = []
        while let line = outbox.next() { lines.append(line) }
        #expect(lines == ["r1", "r2", "o1", "s2"])
    }

    @Test("after finish, a writer takes everything queued, then the end")
    func drain() async throws {
        let outbox = Outbox.watching()
        outbox.send(reply: "r1")
        outbox.offer(.state, line: "s1")
        outbox.finish()
        var written: [String] = []
        while case .line(let line) = outbox.take() { written.append(line) }
        #expect(written == ["r1", "s1"])
    }

    @Test("a reader waiting for room with 64 replies queued goes on once one is written")
    func waitForRoom() async {
        let outbox = Outbox.watching()
        for i in 0..<Outbox.maxQueuedReplies { outbox.send(reply: "r\(i)") }
        let waiter = Task { await outbox.waitForRoom() }
        #expect(outbox.next() == "r0")
        #expect(await waiter.value)
    }

    @Test("replies adding up to 1 MiB also stop reading, though fewer than 64 wait")
    func byteBound() async {
        let outbox = Outbox.watching()
        let big = String(repeating: "x", count: Outbox.maxQueuedReplyBytes / 2)
        outbox.send(reply: big)
        outbox.send(reply: big)
        let waiter = Task { await outbox.waitForRoom() }
        #expect(outbox.next() == big)
        #expect(await waiter.value)
    }

    @Test("close drops what is queued, ends every wait for room with false, and takes nothing more")
    func close() async throws {
        let outbox = Outbox.watching()
        for i in 0..<Outbox.maxQueuedReplies { outbox.send(reply: "r\(i)") }
        outbox.offer(.state, line: "s1")
        let waiter = Task { await outbox.waitForRoom() }
        outbox.close()
        #expect(await waiter.value == false)
        #expect(outbox.next() == nil)
        outbox.send(reply: "late")
        outbox.offer(.overlays, line: "late")
        #expect(outbox.next() == nil)
        #expect(await outbox.waitForRoom() == false)
        if case .finished = outbox.take() {} else { Issue.record("a closed outbox has more to take") }
    }

    @Test("a wait for room ends with false when its task is cancelled")
    func cancelledWait() async {
        let outbox = Outbox.watching()
        for i in 0..<Outbox.maxQueuedReplies { outbox.send(reply: "r\(i)") }
        let waiter = Task { await outbox.waitForRoom() }
        waiter.cancel()
        #expect(await waiter.value == false)
    }

    @Test("a closed outbox is never subscribed: a watch that comes after its client left leaves nothing behind")
    func watchAfterClose() {
        let hub = NotificationHub()
        let outbox = Outbox.watching()
        outbox.close()
        hub.watch(outbox, topics: [.overlays, .state], replay: true)
        #expect(hub.watcherCount == 0)
    }

    @Test("a late watcher with replay gets the state and overlays published before it came")
    func lateReplay() {
        let hub = NotificationHub()
        hub.publish(state: state(0))
        hub.publish(overlays: overlays(7))
        let outbox = Outbox.watching()
        hub.watch(outbox, topics: [.overlays], replay: true)
        #expect(outbox.next()?.contains(#""seq":7"#) == true)
        #expect(outbox.next() == nil)
    }
}
