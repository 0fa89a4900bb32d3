import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import WeatherCore
@testable import WeatherDaemon
@testable import WeatherSessions

@Suite("LoopWritesState: one write job per event loop for every connection that waits")
struct LoopWritesStateTests {
    @Test("the first connection schedules the job, the others join it; the job takes them in order; the next one schedules again")
    func events() {
        var state = LoopWritesState<String>()
        // (Each step's result taken first: `#expect` cannot call a mutating method.)
        var schedules: [Bool] = []
        var taken: [[String]] = []
        for name in ["a", "b", "c"] { schedules.append(state.add(name)) }
        taken.append(state.take())
        schedules.append(state.add("d"))
        taken.append(state.take())
        taken.append(state.take())
        schedules.append(state.add("e"))
        #expect(schedules == [true, false, false, true, true], "the job that found nothing left none scheduled")
        #expect(taken == [["a", "b", "c"], ["d"], []])
    }
}

@Suite("EncodedLine: a line made into a buffer once for many connections")
struct EncodedLineTests {
    private static func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test("the same line twice is the same bytes, with its newline; another line is a buffer of its own")
    func reuse() {
        let encoded = EncodedLine()
        let allocator = ByteBufferAllocator()
        let line = String(repeating: "x", count: 100)
        let first = encoded.buffer(for: line, allocator: allocator)
        let again = encoded.buffer(for: line, allocator: allocator)
        #expect(String(buffer: first) == line + "\n")
        #expect(Self.address(first) == Self.address(again))
        let other = encoded.buffer(for: "y", allocator: allocator)
        #expect(String(buffer: other) == "y\n")
        #expect(Self.address(other) != Self.address(first))
    }
}

/// Watchers on one (embedded) event loop, each a channel with its `SocketClientHandler`, their
/// outboxes signalled as a session signals them.
@Suite("Fan-out on an event loop: a change is written after the publisher's turn, by one job, from one buffer")
struct LoopFanoutTests {
    private struct Watcher {
        let channel: EmbeddedChannel
        let outbox = Outbox()

        /// `routed`: the hub hands it changes through the loop's `LoopWrites`, as a session over the
        /// Unix socket has it; else one by one.
        init(loop: EmbeddedEventLoop, writes: LoopWrites, routed: Bool = false) throws {
            channel = EmbeddedChannel(loop: loop)
            let handler = SocketClientHandler(eventLoop: loop, session: nil)
            try channel.pipeline.syncOperations.addHandler(handler)
            let output = SocketLineOutput(handler, on: loop, writes: writes)
            if routed { outbox.route = output.notificationRoute }
            outbox.write(whenSignalled: { [outbox] signal in
                switch signal {
                case .lines: output.linesReady(in: outbox)
                case .notifications: output.notificationsReady(in: outbox)
                }
            })
        }

        func written() throws -> [ByteBuffer] {
            var buffers: [ByteBuffer] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { buffers.append(buffer) }
            return buffers
        }
    }

    private static func state(pending: Int) -> DaemonState {
        DaemonState(pending: pending, phase: .loading, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date())
    }

    @Test(
        "nothing is written inside publish; the loop's job writes the newest state to every watcher, one buffer for all",
        arguments: [false, true])
    func oneJob(routed: Bool) throws {
        let loop = EmbeddedEventLoop()
        let writes = LoopWrites(eventLoop: loop)
        let watchers = try (0..<5).map { _ in try Watcher(loop: loop, writes: writes, routed: routed) }
        let hub = NotificationHub()
        for watcher in watchers { hub.watch(watcher.outbox, topics: [.state], replay: false) }

        hub.publish(state: Self.state(pending: 1))
        hub.publish(state: Self.state(pending: 2))
        for watcher in watchers { #expect(try watcher.written().isEmpty, "written inside the publisher's turn") }

        loop.run()
        var addresses: Set<UInt> = []
        for watcher in watchers {
            let buffers = try watcher.written()
            #expect(buffers.count == 1, "only the newest state, written once")
            guard let buffer = buffers.first else { continue }
            let state = try JSONValue.parse(Array(String(buffer: buffer).utf8))
            #expect(state["params"]?["pending"] == .integer(2))
            #expect(String(buffer: buffer).hasSuffix("}\n"))
            addresses.insert(buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) })
        }
        #expect(addresses.count == 1, "each watcher's line is the same buffer")

        // A reply on the loop is written at once, not by the job.
        watchers[0].outbox.send(reply: "r")
        #expect(try watchers[0].written().map { String(buffer: $0) } == ["r\n"])
        for watcher in watchers { _ = try watcher.channel.finish() }
    }

    @Test("a watcher gone before the job runs is skipped; the others still get the change", arguments: [false, true])
    func goneMeanwhile(routed: Bool) throws {
        let loop = EmbeddedEventLoop()
        let writes = LoopWrites(eventLoop: loop)
        let gone = try Watcher(loop: loop, writes: writes, routed: routed)
        let stays = try Watcher(loop: loop, writes: writes, routed: routed)
        let hub = NotificationHub()
        hub.watch(gone.outbox, topics: [.state], replay: false)
        hub.watch(stays.outbox, topics: [.state], replay: false)
        hub.publish(state: Self.state(pending: 3))
        gone.outbox.close()
        _ = try gone.channel.finish()
        loop.run()
        #expect(try stays.written().count == 1)
        _ = try stays.channel.finish()
    }

    @Test("routed: a change the loop's job writes at once; one that comes while the job waits is written with it, the newest only")
    func routedJobs() throws {
        let loop = EmbeddedEventLoop()
        let writes = LoopWrites(eventLoop: loop)
        let routed = try (0..<3).map { _ in try Watcher(loop: loop, writes: writes, routed: true) }
        let alone = try Watcher(loop: loop, writes: writes)
        let hub = NotificationHub()
        for watcher in routed + [alone] { hub.watch(watcher.outbox, topics: [.state, .overlays], replay: false) }

        hub.publish(state: Self.state(pending: 1))
        loop.run()
        for watcher in routed + [alone] { #expect(try watcher.written().count == 1) }

        // A state and an overlays change, then a newer state, before the job runs: one job writes
        // the overlays and the newest state to each, in the order they came.
        hub.publish(state: Self.state(pending: 2))
        hub.publish(overlays: Overlays(seq: 1, focus: nil, features: []))
        hub.publish(state: Self.state(pending: 3))
        loop.run()
        for watcher in routed + [alone] {
            let lines = try watcher.written().map { try JSONValue.parse(Array(String(buffer: $0).utf8)) }
            #expect(lines.map { $0["method"]?.stringValue } == ["overlays", "state"])
            #expect(lines.last?["params"]?["pending"] == .integer(3))
        }
        for watcher in routed + [alone] { _ = try watcher.channel.finish() }
    }
}
