import Foundation
import NIOCore
import NIOEmbedded
import Testing
import WeatherWire

@testable import WeatherCore
@testable import WeatherDaemon
@testable import WeatherSessions

/// Counts the `read()` requests that reach the socket (the head of the pipeline).
private final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// A Unix socket client's handler on an embedded channel: what it writes and when it lets NIO read.
/// Synchronous: the embedded event loop is the test's thread.
@Suite("Socket client handler: writes from the outbox, reads held back")
struct SocketClientHandlerTests {
    private struct Connection {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        let handler: SocketClientHandler
        let outbox = Outbox()

        init() throws {
            handler = SocketClientHandler(eventLoop: channel.eventLoop, session: nil)
            try channel.pipeline.syncOperations.addHandlers(reads, handler)
            let output = SocketLineOutput(handler, on: channel.eventLoop, writes: LoopWrites(eventLoop: channel.eventLoop))
            outbox.write(whenReady: { [outbox] in output.linesReady(in: outbox) })
        }

        /// Everything written so far, as text.
        func written() throws -> String {
            var text = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }
    }

    @Test("lines are written as they come, each with its newline; once the outbox has finished, the last write is confirmed")
    func writes() throws {
        let c = try Connection()
        c.outbox.send(reply: "a")
        c.outbox.send(reply: "b")
        #expect(try c.written() == "a\nb\n")
        c.outbox.finish()
        // The end: an empty write after the lines (it completes once they have been written).
        #expect(try c.channel.readOutbound(as: ByteBuffer.self)?.readableBytes == 0)
        #expect(try c.written() == "")
        _ = try c.channel.finish()
    }

    @Test("while the channel is unwritable nothing is taken; once it drains, everything is, and the end after it")
    func unwritable() throws {
        let c = try Connection()
        c.channel.isWritable = false
        c.channel.pipeline.fireChannelWritabilityChanged()  // as a socket channel does at every change
        c.outbox.send(reply: "a")
        let hub = NotificationHub()
        hub.watch(c.outbox, topics: [.state], replay: false)
        for pending in [1, 2] {
            hub.publish(
                state: DaemonState(pending: pending, phase: .loading, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date()))
        }
        c.outbox.finish()
        #expect(try c.written() == "")
        c.channel.isWritable = true
        c.channel.pipeline.fireChannelWritabilityChanged()
        // The reply, then only the newest state: a client that did not read gets no backlog.
        #expect(try c.channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "a\n")
        let state = try c.channel.readOutbound(as: ByteBuffer.self).map { try JSONValue.parse(Array(String(buffer: $0).utf8)) }
        #expect(state?["params"]?["pending"] == .integer(2))
        #expect(try c.channel.readOutbound(as: ByteBuffer.self)?.readableBytes == 0)
        _ = try c.channel.finish()
    }

    @Test("once 16 messages wait for the session, NIO's next read is held back, and goes ahead below 4")
    func heldRead() async throws {
        // The session's side (`SocketInputs`) is read from a task: the embedded loop is driven
        // from this one's thread in between, by synchronous calls only.
        let c = try Connection()
        let frames = (0..<20).map { ByteBuffer(string: #"{"id":\#($0)}"# + "\n") }
        for frame in frames { try c.channel.writeInbound(frame) }
        c.channel.pipeline.read()
        #expect(c.reads.reads == 0, "read held: 20 messages wait")
        var iterator = c.handler.inputs.makeAsyncIterator()
        for _ in 0..<16 { _ = await iterator.next() }
        #expect(c.reads.reads == 0, "4 still wait")
        _ = await iterator.next()
        #expect(c.reads.reads == 1, "below 4: the held read goes ahead")
        c.channel.pipeline.read()
        #expect(c.reads.reads == 2, "3 waiting: not held")
        _ = try c.channel.finish()
    }

    @Test("NIO's first read waits for the session to read its inputs: the client's first message meets a reading session")
    func firstReadWaitsForSession() async throws {
        let c = try Connection()
        c.channel.pipeline.read()
        #expect(c.reads.reads == 0, "no session reads yet")
        try c.channel.writeInbound(ByteBuffer(string: "x\n"))
        var iterator = c.handler.inputs.makeAsyncIterator()
        _ = await iterator.next()
        #expect(c.reads.reads == 1, "the session reads: the held read goes ahead")
        c.channel.pipeline.read()
        #expect(c.reads.reads == 2, "not held any more")
        _ = try c.channel.finish()
    }

    @Test("lines as the client sends them: split across reads, several in one, with \\r\\n, and a last one without its newline")
    func framing() async throws {
        let c = try Connection()
        for chunk in [#"{"id":"#, "1}\n", "a\r\nb\n\n", "last"] { try c.channel.writeInbound(ByteBuffer(string: chunk)) }
        c.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        var lines: [String] = []
        var iterator = c.handler.inputs.makeAsyncIterator()
        while case .message(let bytes)? = await iterator.next() { lines.append(String(decoding: bytes, as: UTF8.self)) }
        #expect(lines == [#"{"id":1}"#, "a", "b", "", "last"])
        _ = try c.channel.finish()
    }

    @Test("a line over the limit is refused once, and nothing after it is read")
    func oversized() async throws {
        let c = try Connection()
        try c.channel.writeInbound(ByteBuffer(repeating: UInt8(ascii: "x"), count: RPCMessage.maxLineBytes + 2))
        try c.channel.writeInbound(ByteBuffer(string: "\nafter\n"))
        c.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        var iterator = c.handler.inputs.makeAsyncIterator()
        guard case .refuse? = await iterator.next() else {
            Issue.record("the oversized line is not refused")
            return
        }
        #expect(await iterator.next() == nil)
        _ = try c.channel.finish()
    }

    @Test("the inputs end after what was read when the client closes its side, and at once when the connection closes")
    func ends() async throws {
        let c = try Connection()
        try c.channel.writeInbound(ByteBuffer(string: "x\n"))
        c.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        var iterator = c.handler.inputs.makeAsyncIterator()
        guard case .message(let bytes)? = await iterator.next() else {
            Issue.record("the message read before the half-close is lost")
            return
        }
        #expect(bytes == Array("x".utf8))
        #expect(await iterator.next() == nil)
        #expect(c.handler.inputs.failure == nil)

        let d = try Connection()
        _ = try d.channel.finish()
        var other = d.handler.inputs.makeAsyncIterator()
        #expect(await other.next() == nil)
    }
}

@Suite("PumpState: a pump asked for while it runs goes round again instead of running inside itself")
struct PumpStateTests {
    @Test("start, a call meanwhile, one more round, then stop")
    func reentry() {
        var pump = PumpState()
        var steps: [Bool] = []
        steps.append(pump.start())
        steps.append(pump.start())  // a call while it runs does not run it again
        steps.append(pump.goAgain())
        steps.append(pump.goAgain())
        pump.stop()
        steps.append(pump.start())
        steps.append(pump.goAgain())
        pump.stop()
        #expect(steps == [true, false, true, false, true, false])
    }
}
