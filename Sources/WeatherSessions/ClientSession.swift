import Synchronization
import WeatherCore

/// What a transport hands its client session.
public enum ClientInput: Sendable {
    /// One message: a JSON-RPC request, notification or batch.
    case message([UInt8])
    /// The client broke the framing (a line over the limit): `reply` is its last reply; nothing
    /// more is read, and the connection ends once the replies before it and it are written.
    case refuse(reply: String)
}

/// One client connection, whatever carries it (the Unix socket, a WebSocket): reading its
/// requests, admitting them into the search stream in the order they were sent, bounding what
/// waits to be written, and writing it out. One mechanism, so it cannot wedge:
///
/// - Requests enter the stream in order: the next message is read only once the last one has
///   entered it (a search has begun, a locate waits for its fix); the slow part of each (the
///   lookup) runs beside later requests, at most `maxRequestsInFlight` at once.
/// - Once `Outbox.maxQueuedReplies` replies wait to be written, nothing more is read until the
///   client reads. Notifications never pile up: the outbox keeps the latest of each topic.
/// - The session ends, and everything held for the client (queued lines, running requests, its
///   subscription) is released at once, when any of these happens: the transport reports the
///   connection closed (`hangUp`), a write fails, the client half-closes and every reply is
///   written, or the task running it is cancelled (shutdown). Every wait inside ends with it.
///
/// Over a transport that writes from its own thread as lines come (`run(_:writer:)`, the Unix
/// socket), a session is one task: it reads and admits, and runs the requests as its children. A
/// connection that only watches keeps that one task. Over a transport written by a task
/// (`run(_:write:)`, the WebSocket), the task running the session writes and a child reads.
/// (A waiting task costs its connection about 2.5 KB: hence no writer task and no hang-up waiter
/// beside it.) Such a transport offers each message to ``answerAtOnce(_:)`` first: a cached search,
/// a read of the stream or a `watch` is answered there, in the transport's thread, with no task at all.
public final class ClientSession: Sendable {
    /// Requests of one client in progress at once; more wait (and the client is not read).
    public static let maxRequestsInFlight = 16

    private let handler: RequestHandler
    private let access: @Sendable () -> ClientAccess
    private let outbox = Outbox()
    private let slots = RequestSlots(limit: ClientSession.maxRequestsInFlight)
    /// What the reader waits on while a request enters the stream; a hang-up ends that wait too.
    private let admission = Mutex<Admission?>(nil)
    /// Whether a message may be answered at once (``answerAtOnce(_:)``).
    private let atOnce = Mutex(AtOnceState())

    /// - Parameter access: what the client may do, read for each request (so a reload applies at once).
    public init(handler: RequestHandler, access: @escaping @Sendable () -> ClientAccess = { .full }) {
        self.handler = handler
        self.access = access
    }

    /// The transport saw the connection close: the session ends at once, whatever it was doing.
    /// Safe to call from any thread, before or during `run`, any number of times.
    public func hangUp() {
        // Ends the writer's wait for lines; a write in progress fails, as a closed connection's
        // writes do (see `run`). Every wait of the reader ends too (in this order: each checks
        // the outbox after it is set up), so the session ends even while its inputs have not.
        outbox.close()
        slots.close()
        admission.withLock { $0 }?.open()
    }

    /// Answers `message` at once, in the caller's thread, when the session reads, nothing of the
    /// client's is unfinished, and the message is a request answered without waiting
    /// (``RequestHandler/answerAtOnce(line:outbox:access:)``): true then. False otherwise: the
    /// transport hands the message to the session's inputs, and nothing is answered at once until
    /// its request is done. For a transport run with ``run(_:writer:offered:)`` and `offered`, which
    /// offers every message here before its inputs, from one thread at a time; for any other
    /// session it answers nothing.
    public func answerAtOnce(_ message: [UInt8]) -> Bool {
        if atOnce.withLock({ $0.mayAnswer }), outbox.takesRequests,
            handler.answerAtOnce(line: message, outbox: outbox, access: access())
        {
            return true
        }
        atOnce.withLock { $0.handedOver() }
        return false
    }

    /// Serves the client until the session ends (see the type's description), in the task that
    /// calls it, with no other: the transport writes.
    /// - Parameters:
    ///   - inputs: the client's messages as the transport frames them; they end when the client
    ///     sends no more (its replies are still written) and when the connection closes.
    ///   - writer: told whenever lines wait; it takes them from the outbox and writes them.
    ///   - offered: the transport offers each message to ``answerAtOnce(_:)`` before it hands it
    ///     to `inputs` (the Unix socket does); without, nothing is answered at once.
    public func run<Inputs: AsyncSequence & Sendable>(
        _ inputs: Inputs, writer: some LineWriter, offered: Bool = false
    ) async where Inputs.Element == ClientInput {
        outbox.route = writer.notificationRoute
        outbox.write(whenSignalled: { [outbox] signal in
            switch signal {
            case .lines: writer.linesReady(in: outbox)
            case .notifications: writer.notificationsReady(in: outbox)
            }
        })
        await read(inputs, offered: offered)
        outbox.finish()
        // Until the last reply is written, the connection closes (`hangUp`) or shutdown.
        _ = await outbox.allWritten()
        outbox.close()
        handler.disconnected(outbox)
    }

    /// Serves the client until the session ends (see the type's description).
    /// - Parameters:
    ///   - inputs: the client's messages as the transport frames them; their end means the client
    ///     sends no more (its replies are still written).
    ///   - write: writes one line (a reply or a notification) to the client; throws when it is gone.
    ///     Once the transport has seen the connection close (it then calls `hangUp`), a write in
    ///     progress or a later one must end with an error, as `NIOAsyncChannel`'s writer does: its
    ///     waiting writes fail when the channel becomes inactive.
    public func run<Inputs: AsyncSequence & Sendable>(
        _ inputs: Inputs, write: @escaping @Sendable (String) async throws -> Void
    ) async where Inputs.Element == ClientInput {
        await withDiscardingTaskGroup { reader in
            reader.addTask {
                await self.read(inputs, offered: false)
                self.outbox.finish()
            }
            // The writer, in this task. It is done when all is written after the client stopped
            // sending, when a write fails (the client is gone), at a hang-up (`close`), or when the
            // task is cancelled; then the rest stops. The reader ending alone only means the client
            // sends no more.
            try? await writeAll(to: write)
            outbox.close()
            reader.cancelAll()
        }
        handler.disconnected(outbox)
    }

    /// Writes every line of the outbox with `write` as it comes, until `finish` and the outbox is
    /// empty, until `close`, or until the task is cancelled. A throwing `write` (the client went
    /// away) ends it.
    private func writeAll(to write: (String) async throws -> Void) async throws {
        let ready = Wakeup()
        outbox.write(whenReady: ready.wake)
        while await ready.wait() {
            taking: while true {
                switch outbox.take() {
                case .line(let line): try await write(line)
                case .none: break taking
                case .finished:
                    outbox.confirmWritten()
                    return
                }
            }
        }
    }

    /// Reads and admits requests until the inputs end, a refusal, or cancellation; then waits for
    /// the requests still running. `offered`: each message was offered to ``answerAtOnce(_:)`` first.
    private func read<Inputs: AsyncSequence & Sendable>(_ inputs: Inputs, offered: Bool) async
    where Inputs.Element == ClientInput {
        if offered { atOnce.withLock { $0.started() } }
        var messages = inputs.makeAsyncIterator()
        // No task group until a request needs a task of its own: a watcher, whose `watch` was
        // answered at once, waits for its next message without one (a group costs its connection
        // 0.6 KB as long as it stays).
        if var line = await nextMessage(&messages) {
            // A discarding group: a request's task and its memory go as soon as it is done. (A
            // task group keeps each finished child until it is collected.)
            await withDiscardingTaskGroup { requests in
                while await outbox.waitForRoom() {
                    let access = access()
                    let entered = await slots.admit(
                        into: &requests, admitting: { admitted in admission.withLock { $0 = admitted } },
                        stillWanted: { !outbox.isClosed }
                    ) { [handler, outbox, self, line] admitted in
                        await handler.handle(line: line, outbox: outbox, access: access, admission: admitted)
                        if offered { self.atOnce.withLock { $0.finished() } }
                    }
                    guard entered, !outbox.isClosed, let next = await nextMessage(&messages) else { break }
                    line = next
                }
                stopReading()
                // The requests still running finish and their replies are written, unless the
                // client hangs up (or shutdown) first: then they stop.
                if await !slots.allFree() { requests.cancelAll() }
            }
        } else {
            stopReading()
        }
    }

    /// The next message to admit; nil when the inputs end or fail, or at a refusal (its reply sent).
    private func nextMessage<Messages: AsyncIteratorProtocol>(_ messages: inout Messages) async -> [UInt8]?
    where Messages.Element == ClientInput {
        do {
            switch try await messages.next() {
            case .message(let line)?: return line
            case .refuse(let reply)?:
                outbox.send(reply: reply)
                return nil
            case nil: return nil
            }
        } catch {
            // The transport failed to read: the client sends no more.
            return nil
        }
    }

    private func stopReading() {
        atOnce.withLock { $0.stopped() }
        admission.withLock { $0 = nil }
    }
}

/// A transport that writes a session's lines itself, from its own thread, as they come (the
/// Unix socket writes from its event loop; `ClientSession.run(_:writer:)`).
public protocol LineWriter: Sendable {
    /// Lines wait in `outbox`, or it has finished; called from any thread. The writer takes them
    /// with `outbox.take()` (from one thread at a time) until `.none`, and writes them; when it
    /// gets `.finished` it calls `outbox.confirmWritten()` once what it took before is written.
    /// Once the connection closes, it calls the session's `hangUp()`.
    func linesReady(in outbox: Outbox)

    /// Like `linesReady`, for notifications the hub handed over while it publishes a change to
    /// every watcher: the writer takes them later, on its own thread, not inside the caller's turn.
    /// By default the same as `linesReady`.
    func notificationsReady(in outbox: Outbox)

    /// What hands the hub's changes to this writer's outbox together with others', on the writer's
    /// own thread (``NotificationRoute``); nil (the default): the hub hands them to it alone.
    var notificationRoute: (any NotificationRoute)? { get }
}

extension LineWriter {
    public func notificationsReady(in outbox: Outbox) { linesReady(in: outbox) }
    public var notificationRoute: (any NotificationRoute)? { nil }
}
