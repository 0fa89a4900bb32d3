import Synchronization

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
/// A session is two tasks: the one that runs it writes, and one child reads and admits (and runs
/// the requests as its children). A connection that only watches keeps those two (issue 12: it
/// kept four, a writer and a hang-up waiter beside them; a watcher costs 3 KB less since).
public final class ClientSession: Sendable {
    /// Requests of one client in progress at once; more wait (and the client is not read).
    public static let maxRequestsInFlight = 16

    private let handler: RequestHandler
    private let access: @Sendable () -> ClientAccess
    private let outbox = Outbox()

    /// - Parameter access: what the client may do, read for each request (so a reload applies at once).
    public init(handler: RequestHandler, access: @escaping @Sendable () -> ClientAccess = { .full }) {
        self.handler = handler
        self.access = access
    }

    /// The transport saw the connection close: the session ends at once, whatever it was doing.
    /// Safe to call from any thread, before or during `run`, any number of times.
    public func hangUp() {
        // Ends the writer's wait for lines; a write in progress fails, as a closed connection's
        // writes do (see `run`). The writer ending cancels the rest.
        outbox.close()
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
                await self.read(inputs)
                self.outbox.finish()
            }
            // The writer, in this task. It is done when all is written after the client stopped
            // sending, when a write fails (the client is gone), at a hang-up (`close`), or when the
            // task is cancelled; then the rest stops. The reader ending alone only means the client
            // sends no more.
            try? await outbox.drain(write)
            outbox.close()
            reader.cancelAll()
        }
        handler.disconnected(outbox)
    }

    /// Reads and admits requests until the inputs end, a refusal, or cancellation; then waits for
    /// the requests still running.
    private func read<Inputs: AsyncSequence & Sendable>(_ inputs: Inputs) async where Inputs.Element == ClientInput {
        // A discarding group: a request's task and its memory go as soon as it is done. (A task
        // group keeps each finished child until it is collected; a watcher kept its `watch`
        // request, about 12 KB, for as long as it stayed connected.)
        let slots = RequestSlots(limit: Self.maxRequestsInFlight)
        await withDiscardingTaskGroup { requests in
            do {
                for try await input in inputs {
                    let line: [UInt8]
                    switch input {
                    case .refuse(let reply):
                        outbox.send(reply: reply)
                        return
                    case .message(let message):
                        line = message
                    }
                    guard await outbox.waitForRoom(), await slots.take() else { return }
                    let admitted = Wakeup()
                    let access = access()
                    requests.addTask { [handler, outbox] in
                        await handler.handle(line: line, outbox: outbox, access: access, admitted: admitted.wake)
                        slots.give()
                    }
                    guard await admitted.wait() else { return }
                }
            } catch {
                // The transport failed to read: the client sends no more.
            }
        }
    }
}

/// At most `limit` requests of one client run at once: the reader takes a slot before it starts
/// one (waiting while all are taken), and the request gives it back when it is done.
private final class RequestSlots: Sendable {
    private let limit: Int
    private let taken = Mutex(0)
    private let freed = Wakeup()

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot, waiting while all `limit` are taken; false when the task is cancelled.
    func take() async -> Bool {
        while true {
            let got = taken.withLock { taken in
                guard taken < limit else { return false }
                taken += 1
                return true
            }
            if got { return true }
            guard await freed.wait() else { return false }
        }
    }

    func give() {
        taken.withLock { $0 -= 1 }
        freed.wake()
    }
}
