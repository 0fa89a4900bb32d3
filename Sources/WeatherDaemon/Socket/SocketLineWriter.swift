import NIOCore
import Synchronization
import WeatherCore
import WeatherWire

/// Writes a client session's lines from its connection's event loop as they come, with no task of
/// its own (issue 12: a writer task cost a watcher about 5 KB, and each line a hop through
/// `NIOAsyncChannel`'s writer). Lines are taken from the session's outbox while the channel is
/// writable and flushed together; a client that does not read makes the channel unwritable, and
/// its lines wait in the outbox (which keeps it bounded) until the channel drains.
final class SocketLineWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = JSONLineFrame  // passed on untouched
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?
    private var outbox: Outbox?
    /// `pump` is running; a call meanwhile (a writability change during a flush) makes it go round again.
    private var pumping = false
    private var again = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        self.outbox = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let outbox { pump(outbox) }
        context.fireChannelWritabilityChanged()
    }

    /// Writes what `outbox` holds while the channel takes it. On the event loop only.
    func pump(_ outbox: Outbox) {
        guard let context else { return }
        self.outbox = outbox
        guard !pumping else {
            again = true
            return
        }
        pumping = true
        defer { pumping = false }
        repeat {
            again = false
            var wrote = false
            taking: while context.channel.isWritable {
                switch outbox.take() {
                case .line(let line):
                    var buffer = context.channel.allocator.buffer(capacity: line.utf8.count + 1)
                    buffer.writeString(line)
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    context.write(wrapOutboundOut(buffer), promise: nil)
                    wrote = true
                case .none:
                    break taking
                case .finished:
                    // Writes complete in order: this empty one completes once all before it have.
                    let written = context.eventLoop.makePromise(of: Void.self)
                    written.futureResult.whenComplete { _ in outbox.confirmWritten() }
                    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: written)
                    return
                }
            }
            if wrote { context.flush() }
        } while again
    }
}

/// The `LineWriter` a session is given: tells the connection's `SocketLineWriter` there are lines,
/// at once on the event loop, or by one scheduled call from another thread (several notifications
/// before it runs make one).
final class SocketLineOutput: LineWriter {
    private let eventLoop: any EventLoop
    private let writer: NIOLoopBound<SocketLineWriter>
    private let scheduled = Atomic(false)

    /// Call on `eventLoop`.
    init(_ writer: SocketLineWriter, on eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.writer = NIOLoopBound(writer, eventLoop: eventLoop)
    }

    func linesReady(in outbox: Outbox) {
        if eventLoop.inEventLoop {
            writer.value.pump(outbox)
        } else if !scheduled.exchange(true, ordering: .acquiringAndReleasing) {
            eventLoop.execute { [self] in
                scheduled.store(false, ordering: .releasing)
                writer.value.pump(outbox)
            }
        }
    }
}
