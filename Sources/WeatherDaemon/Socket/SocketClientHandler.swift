import NIOCore
import Synchronization
import WeatherCore
import WeatherSessions
import WeatherWire

/// A Unix socket client's connection as its `ClientSession` sees it, with no task of its own and
/// no `NIOAsyncChannel` between (its generic sequence producer and writer cost a
/// watcher a task and about 3 KB, and each request a tenth of the daemon's time in generic
/// metadata lookups):
///
/// - it splits what the client sends into lines itself (``JSONLineDecoder``; a `ByteToMessageHandler`
///   before it cost each connection another 0.5 KB and each message a pass through one more handler);
/// - each line is offered to the session first (``ClientSession/answerAtOnce(_:)``): a
///   cached search or a read of the stream is answered there and then, on the event loop, and its
///   reply written before `channelRead` returns;
/// - the other lines go to the session through `inputs`; once `maxBuffered` wait there, the
///   socket is no longer read until the session has taken most of them (the client then waits
///   in the kernel's socket buffer);
/// - its lines are taken from the session's outbox while the channel is writable and flushed
///   together (`output`, told by the outbox as lines come); a client that does not read makes
///   the channel unwritable, and its lines wait in the outbox, which keeps them bounded.
final class SocketClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Reading stops once this many messages wait for the session, and goes on below `resumeBelow`.
    static let maxBuffered = 16
    static let resumeBelow = 4

    let inputs: SocketInputs
    /// The connection's session, offered each line first; nil once the handler is removed.
    private var session: ClientSession?
    private var context: ChannelHandlerContext?
    private var outbox: Outbox?
    /// Whether `pump` is running, and must go round again.
    private var pumpState = PumpState()
    private var framing = JSONLineDecoder(maxLength: RPCMessage.maxLineBytes)
    /// The start of a line whose newline has not come yet.
    private var partial: ByteBuffer?
    /// Whether the channel takes more writes, as `channelWritabilityChanged` last said (NIO tells
    /// every change, at once, also during a write), and the channel's allocator: kept here, because
    /// asking the channel for them touched its pipeline, the channel and its writability flag, three
    /// objects out of the cache per watcher when a change goes to thousands of them.
    private var writable = true
    private var allocator = ByteBufferAllocator()

    init(eventLoop: any EventLoop, session: ClientSession?) {
        inputs = SocketInputs(eventLoop: eventLoop)
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        writable = context.channel.isWritable
        allocator = context.channel.allocator
        inputs.attach(NIOLoopBound(self, eventLoop: context.eventLoop))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        inputs.end()
        self.context = nil
        self.outbox = nil
        self.session = nil
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if var partial {
            self.partial = nil
            partial.writeBuffer(&buffer)
            buffer = partial
        }
        while let frame = framing.nextFrame(in: &buffer) { offer(frame) }
        if buffer.readableBytes > 0 { partial = buffer }
    }

    private func offer(_ frame: JSONLineFrame) {
        let input = ClientInput(frame)
        if case .message(let line) = input, let session, session.answerAtOnce(line) { return }
        inputs.yield(input)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partial = nil
        inputs.end()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side (remote half-closure is allowed): it sends no more. A last
        // line without its newline still counts.
        if case .inputClosed? = event as? ChannelEvent {
            if var rest = partial {
                partial = nil
                if let frame = framing.lastFrame(in: &rest) { offer(frame) }
            }
            inputs.end()
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The client sends no more; its replies are still written (NIO closes the channel itself
    /// after an error it cannot go on from). The session's end logs it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        inputs.end(failure: error)
    }

    /// NIO asks to read more after each read: held back while the session has enough to do.
    func read(context: ChannelHandlerContext) {
        if inputs.holdRead() { return }
        context.read()
    }

    /// The session took enough: the read held back goes ahead. On the event loop.
    fileprivate func resumeReading() {
        context?.read()
    }

    // MARK: Writing

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writable = context.channel.isWritable
        if writable, let outbox { pump(outbox) }
        context.fireChannelWritabilityChanged()
    }

    /// Writes what `outbox` holds while the channel takes it. On the event loop only.
    func pump(_ outbox: Outbox) {
        pump(outbox, encoded: EncodedLine())
    }

    /// The same, making each line's buffer with `encoded`: a job writing one change to many
    /// connections makes it once.
    func pump(_ outbox: Outbox, encoded: EncodedLine) {
        guard let context else { return }
        self.outbox = outbox
        guard pumpState.start() else { return }
        defer { pumpState.stop() }
        repeat {
            var wrote = false
            taking: while writable {
                let (next, more) = outbox.takeWithMore()
                switch next {
                case .line(let line):
                    context.write(wrapOutboundOut(encoded.buffer(for: line, allocator: allocator)), promise: nil)
                    wrote = true
                    if !more { break taking }  // nothing left: no take only to hear it
                case .none:
                    break taking
                case .finished:
                    // Writes complete in order: this empty one completes once all before it have.
                    let written = context.eventLoop.makePromise(of: Void.self)
                    written.futureResult.whenComplete { _ in outbox.confirmWritten() }
                    context.writeAndFlush(wrapOutboundOut(allocator.buffer(capacity: 0)), promise: written)
                    return
                }
            }
            if wrote { context.flush() }
        } while pumpState.goAgain()
    }
}

/// Whether `SocketClientHandler.pump` runs: a call while it runs (a writability change during its
/// flush, on the same event loop) makes it go round again instead of running inside itself.
struct PumpState {
    private var pumping = false
    private var again = false

    /// A pump is asked for: true to run it now; false when one runs (it goes round again).
    mutating func start() -> Bool {
        guard !pumping else {
            again = true
            return false
        }
        pumping = true
        again = false
        return true
    }

    /// A round is done: whether to go round again (asked for meanwhile).
    mutating func goAgain() -> Bool {
        defer { again = false }
        return again
    }

    mutating func stop() {
        pumping = false
    }
}

/// A connection's messages, as the session reads them: fed by its `SocketClientHandler` on the
/// event loop; they end when the client closes its side, when the connection closes, or when
/// the handler is removed. One task reads them (the session's).
final class SocketInputs: AsyncSequence, Sendable {
    typealias Element = ClientInput

    private let eventLoop: any EventLoop
    private let state = Mutex(
        InputQueueState<ClientInput, CheckedContinuation<ClientInput?, Never>>(
            maxBuffered: SocketClientHandler.maxBuffered, resumeBelow: SocketClientHandler.resumeBelow))
    private let handler = Mutex<NIOLoopBound<SocketClientHandler>?>(nil)

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    fileprivate func attach(_ handler: NIOLoopBound<SocketClientHandler>) {
        self.handler.withLock { $0 = handler }
    }

    /// A message from the client (on the event loop).
    fileprivate func yield(_ input: ClientInput) {
        state.withLock { $0.yield(input) }?.resume(returning: input)
    }

    /// Why the inputs ended early: a read failed (nil when the client closed, or has not).
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// The client sends no more: once what was buffered is read, the inputs end.
    fileprivate func end(failure: (any Error)? = nil) {
        state.withLock { $0.end(failure: failure) }?.resume(returning: nil)
        handler.withLock { $0 = nil }  // the handler holds these inputs: no cycle once they end
    }

    /// Whether NIO's next read is held back (the session has enough waiting); it goes ahead once
    /// the session has taken most of them.
    fileprivate func holdRead() -> Bool {
        state.withLock { $0.holdRead() }
    }

    private func next() async -> ClientInput? {
        let step = state.withLock { $0.next() }
        if step.resumeReading { resumeReading() }
        switch step.next {
        case .input(let input): return input
        case .end: return nil
        case .none: break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ClientInput?, Never>) in
                switch state.withLock({ $0.wait(continuation, cancelled: Task.isCancelled) }) {
                case .input(let input): continuation.resume(returning: input)
                case .end: continuation.resume(returning: nil)
                case .none: break
                }
            }
        } onCancel: {
            state.withLock { $0.cancel() }?.resume(returning: nil)
        }
    }

    private func resumeReading() {
        guard let handler = handler.withLock({ $0 }) else { return }
        if eventLoop.inEventLoop {
            handler.value.resumeReading()
        } else {
            eventLoop.execute { handler.value.resumeReading() }
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let inputs: SocketInputs
        mutating func next() async -> ClientInput? { await inputs.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inputs: self) }
}

/// The `LineWriter` a session is given: tells the connection's `SocketClientHandler` there are
/// lines. Replies are written at once when they come on the event loop; from another thread, and
/// the hub's notifications always, by the loop's next write job (`LoopWrites`: one job writes to
/// every connection of the loop that waits; a connection waits in it once however many lines come).
final class SocketLineOutput: LineWriter {
    private let eventLoop: any EventLoop
    private let handler: NIOLoopBound<SocketClientHandler>
    private let writes: LoopWrites
    private let queued = Atomic(false)

    /// Call on `eventLoop`; `writes` is that loop's.
    init(_ handler: SocketClientHandler, on eventLoop: any EventLoop, writes: LoopWrites) {
        self.eventLoop = eventLoop
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
        self.writes = writes
    }

    func linesReady(in outbox: Outbox) {
        if eventLoop.inEventLoop {
            handler.value.pump(outbox, encoded: writes.encodedLine)
        } else {
            notificationsReady(in: outbox)
        }
    }

    func notificationsReady(in outbox: Outbox) {
        if !queued.exchange(true, ordering: .acquiringAndReleasing) { writes.add(self, outbox) }
    }

    /// The hub hands this connection's changes to its event loop's job, with the loop's other watchers.
    var notificationRoute: (any NotificationRoute)? { writes }

    /// The loop's write job: writes what `outbox` holds. On the event loop.
    func pumpQueued(_ outbox: Outbox, encoded: EncodedLine) {
        queued.store(false, ordering: .releasing)
        handler.value.pump(outbox, encoded: encoded)
    }
}
